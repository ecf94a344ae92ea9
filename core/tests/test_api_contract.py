import pytest
from django.test import Client

from core.testing import ApiClient
from finance.services import api_key_issue, api_key_revoke
from finance.tests.factories import TerminalFactory
from orders.tests.factories import TraderFactory


@pytest.fixture
def shop(db):
    """A terminal answering to `shop-key`, also holding a revoked key; and a trader."""
    terminal = TerminalFactory(key="shop-key")
    api_key_revoke(key=api_key_issue(terminal=terminal, raw="revoked-key")[0])
    TraderFactory(key="trader-key")
    return ApiClient("shop-key")


def test_missing_key_is_401(anonymous, db):
    response = anonymous.get("/api/v1/order/")
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "API key is required",
        "code": "api_key_required",
    }


@pytest.mark.parametrize("key", ["nope", "revoked-key", "trader-key", " "])
def test_unknown_revoked_or_foreign_key_is_401(shop, key):
    response = ApiClient(key).get("/api/v1/finance/balance")
    assert response.status_code == 401
    expected = "API key is required" if not key.strip() else "Invalid API key"
    assert response.json()["message"] == expected


def test_unknown_api_route_is_json_404(shop):
    response = shop.get("/api/v1/nothing/here")
    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "Not found", "code": "not_found"}


def test_wrong_method_is_json_405(shop):
    response = shop.request("DELETE", "/api/v1/finance/balance")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert response.json()["success"] is False


def test_rate_limit_answers_429_with_retry_after(shop, settings):
    settings.API_RATE_LIMIT = "3/min"
    from django.core.cache import cache

    cache.clear()
    statuses = [shop.get("/api/v1/finance/balance").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = shop.get("/api/v1/finance/balance")
    assert int(response["Retry-After"]) >= 1
    assert response.json()["code"] == "rate_limited"
    cache.clear()


def test_health_and_readiness(client, db):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"database": True, "broker": True}


def test_openapi_schema_and_docs_are_public(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    text = schema.content.decode()
    for path in ["/api/v1/order/", "/api/v1/finance/balance", "/api/v1/trader/orders"]:
        assert path in text
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn" not in docs.content.lower()


def test_api_responses_are_not_cached(shop):
    assert shop.get("/api/v1/finance/balance")["Cache-Control"] == "no-store"


def test_ping_checks_the_key(shop, anonymous):
    assert shop.get("/api/v1/ping").json() == {"success": True}
    assert anonymous.get("/api/v1/ping").status_code == 401


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        ("1200/min", (1200, 60)),
        ("20/s", (20, 1)),
        ("100/hour", (100, 3600)),
        ("5000/day", (5000, 86400)),
        ("7", (7, 60)),
        ("3/minute", (3, 60)),
        ("5/900s", (5, 900)),
        ("5/15min", (5, 900)),
    ],
)
def test_rate_limit_setting_forms(rate, expected):
    from core.rates import parse_rate

    parsed = parse_rate(rate)
    assert (parsed.count, parsed.seconds) == expected


@pytest.mark.parametrize("rate", ["", "fast", "10/week", "10/0s", "-1/min", "1.5/min"])
def test_a_rate_setting_that_does_not_parse_names_itself(rate):
    from core.rates import parse_rate

    with pytest.raises(ValueError, match="AUTH_FAILURE_RATE_LIMIT must look like 1200/min"):
        parse_rate(rate, name="AUTH_FAILURE_RATE_LIMIT")


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/api/v1/nothing/here", "/api/", "/api/v1/order/x/cancel/x"])
def test_unknown_route_is_json_404_for_every_method_with_csrf_checks_on(shop, method, path):
    """Browsers' CSRF rules do not apply to key-authenticated API calls; a client that
    enforces them (as real requests meet them) must still get the JSON 404."""
    http = Client(enforce_csrf_checks=True)
    response = getattr(http, method.lower())(
        path, "{}", content_type="application/json", headers={"X-API-Key": "shop-key"}
    )
    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "Not found", "code": "not_found"}


def test_route_without_trailing_slash_takes_a_post_with_csrf_checks_on(shop):
    http = Client(enforce_csrf_checks=True)
    response = http.post(
        "/api/v1/order/00000000-0000-0000-0000-000000000000/cancel/",
        "{}",
        content_type="application/json",
        headers={"X-API-Key": "shop-key"},
    )
    assert response.status_code == 404
    assert response.json()["code"] == "order_not_found"


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/"])
def test_wrong_method_on_the_docs_is_json_405(client, db, path):
    response = client.post(path)
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_probes_answer_other_methods_with_405(db, path):
    response = Client(enforce_csrf_checks=True).post(path)
    assert response.status_code == 405
