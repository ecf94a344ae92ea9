"""Webhook self-service: the terminal's endpoint list and signing-secret rotation.
Each test builds its own terminal (factories); the banner's test reads the demo set."""

from io import StringIO

import pytest
from django.core.management import call_command
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from core.testing import ApiClient
from finance.models import Terminal
from finance.tests.factories import TerminalFactory
from orders.tests.factories import RequisiteFactory, TraderFactory
from webhooks.delivery import delivery_attempt
from webhooks.models import WebhookDelivery

from .conftest import SECRET, deliver_all, headers_of


@pytest.fixture
def method(db):
    """A bank method an active trader holds a requisite on."""
    return RequisiteFactory().method


@pytest.fixture
def terminal(method):
    return TerminalFactory(methods=[method], webhook_secret=SECRET)


@pytest.fixture
def shop(terminal) -> ApiClient:
    return ApiClient(terminal.raw_key)


def buy(shop: ApiClient, method, **extra) -> dict:
    body = {
        "client_order_id": "order-1",
        "order_side": "Buy",
        "payment_method_id": str(method.pk),
        "amount": "1000.00",
        **extra,
    }
    response = shop.post("/api/v1/order/", body)
    assert response.status_code == 201, response.content
    return response.json()


def put(client: ApiClient, body):
    return client.request(
        "put", "/api/v1/webhooks/endpoints", data=body, content_type="application/json"
    )


def test_endpoints_start_empty_and_are_replaced_deduplicated(shop, terminal, method, receiver):
    assert shop.get("/api/v1/webhooks/endpoints").json() == {
        "success": True,
        "message": "OK",
        "urls": [],
    }
    second = receiver.url + "/second"
    response = put(shop, {"urls": [receiver.url, second, receiver.url]})
    assert response.status_code == 200, response.content
    assert response.json()["urls"] == [receiver.url, second]
    assert shop.get("/api/v1/webhooks/endpoints").json()["urls"] == [receiver.url, second]
    buy(shop, method)
    deliver_all()
    assert sorted(r["path"] for r in receiver.requests) == ["/hooks", "/hooks/second"]
    assert put(shop, {"urls": []}).json()["urls"] == []
    assert Terminal.objects.get(pk=terminal.pk).webhook_urls == []


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"urls": "https://example.com/hook"},
        {"urls": ["ftp://example.com/hook"]},
        {"urls": ["not a url"]},
        {"urls": ["https://example.com/" + "a" * 500]},
        {"urls": [f"https://example.com/{n}" for n in range(11)]},
        {"urls": [None]},
    ],
)
def test_bad_endpoint_lists_are_400_and_change_nothing(shop, terminal, body):
    response = put(shop, body)
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
    assert "urls" in response.json()["errors"]
    assert Terminal.objects.get(pk=terminal.pk).webhook_urls == []


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.215.14/hook",  # not https
        "https://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest",
        "https://[::1]/hook",
    ],
)
def test_without_private_networks_only_public_https_targets_are_accepted(shop, settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    response = put(shop, {"urls": [url]})
    assert response.status_code == 400
    assert url in response.json()["errors"]["urls"][0]


def test_a_public_https_target_is_accepted_when_private_networks_are_not(shop, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    response = put(shop, {"urls": ["https://93.184.215.14/hook"]})
    assert response.status_code == 200


def test_rotation_returns_a_new_secret_once_and_both_sign_meanwhile(shop, method, receiver):
    response = shop.post("/api/v1/webhooks/secret/rotate")
    assert response.status_code == 200
    body = response.json()
    assert (body["success"], body["message"]) == (True, "OK")
    new_secret = body["secret"]
    assert new_secret.startswith("whsec_") and new_secret != SECRET
    buy(shop, method, webhook_url=receiver.url)
    delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)
    (request,) = receiver.requests
    signatures = headers_of(request)["webhook-signature"].split(" ")
    assert len(signatures) == 2 and all(s.startswith("v1,") for s in signatures)
    Webhook(SECRET).verify(request["body"], headers_of(request))
    Webhook(new_secret).verify(request["body"], headers_of(request))
    # The secret is never shown again.
    assert new_secret not in shop.get("/api/v1/webhooks/endpoints").content.decode()


def test_rotating_twice_keeps_only_the_last_two_secrets(shop, method, receiver):
    first = shop.post("/api/v1/webhooks/secret/rotate").json()["secret"]
    second = shop.post("/api/v1/webhooks/secret/rotate").json()["secret"]
    buy(shop, method, webhook_url=receiver.url)
    delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)
    (request,) = receiver.requests
    Webhook(first).verify(request["body"], headers_of(request))
    Webhook(second).verify(request["body"], headers_of(request))
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(request["body"], headers_of(request))


def test_self_service_is_the_callers_terminal_only(shop, terminal, receiver):
    put(shop, {"urls": [receiver.url]})
    other = ApiClient(TerminalFactory().raw_key)
    assert other.get("/api/v1/webhooks/endpoints").json()["urls"] == []
    other.post("/api/v1/webhooks/secret/rotate")
    assert Terminal.objects.get(pk=terminal.pk).webhook_secret == SECRET


def test_trader_keys_are_401(db):
    trader = ApiClient(TraderFactory().raw_key)
    assert trader.get("/api/v1/webhooks/endpoints").status_code == 401
    assert trader.post("/api/v1/webhooks/secret/rotate").status_code == 401
    assert trader.get("/api/v1/webhooks/deliveries").status_code == 401


def test_the_make_run_banner_prints_the_demo_signing_secret(demo):
    out = StringIO()
    call_command("demo_banner", stdout=out)
    assert SECRET in out.getvalue()
    assert Terminal.objects.get(pk=demo.shop.pk).webhook_secret == SECRET


def test_where_private_networks_are_allowed_any_http_url_is_taken_without_a_lookup(shop):
    response = put(shop, {"urls": ["https://merchant.invalid/hooks", "http://localhost/x"]})
    assert response.status_code == 200
    assert response.json()["urls"] == ["https://merchant.invalid/hooks", "http://localhost/x"]


def test_an_unresolvable_host_is_refused_where_the_guard_applies(shop, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    response = put(shop, {"urls": ["https://merchant.invalid/hooks"]})
    assert response.status_code == 400
    assert "merchant.invalid" in response.json()["errors"]["urls"][0]
