"""The schema says what the API does: the create answers the bare
Order, amounts of 0 are not schema-valid, the method rule is in the schema, NUL
characters and deep nesting are 400s."""

import json
import re

import jsonschema
import pytest
from django.test import Client

from core.testing import ApiClient
from demo.testing import buy_body


@pytest.fixture
def openapi(db):
    return Client().get("/api/schema/?format=json").json()


@pytest.fixture
def shop(world) -> ApiClient:  # core/tests/conftest.py's world, not the demo set
    return world.shop


def request_schema(openapi, name: str) -> dict:
    return openapi["components"]["schemas"][name]


def test_order_create_documents_the_bare_order_and_replay_header(openapi):
    created = openapi["paths"]["/api/v1/order/"]["post"]["responses"]["201"]
    ref = created["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/OrderOut")
    assert "Idempotent-Replayed" in created["headers"]
    assert "Retry-After" in openapi["paths"]["/api/v1/order/"]["get"]["responses"]["429"]["headers"]


def test_order_create_201_body_matches_the_documented_schema(shop, world, openapi):
    response = shop.post("/api/v1/order/", world.buy_body())
    assert response.status_code == 201, response.content
    body = response.json()
    assert "success" not in body
    required = set(request_schema(openapi, "OrderOut")["required"])
    assert required <= body.keys()


@pytest.mark.parametrize("amount", ["0", "0.00", "000.0", "5.", "+5", "1e3"])
def test_amount_pattern_refuses_what_the_server_refuses(openapi, shop, world, amount):
    pattern = request_schema(openapi, "OrderCreateInRequest")["properties"]["amount"]["oneOf"][0][
        "pattern"
    ]
    assert not re.search(pattern, amount)
    response = shop.post("/api/v1/order/", world.buy_body(amount=amount))
    assert response.status_code == 400, response.content


def test_method_rule_is_in_the_schema(openapi):
    schema = request_schema(openapi, "OrderCreateInRequest")
    validator = jsonschema.Draft4Validator({**schema, "components": openapi["components"]})
    base = {"client_order_id": "a", "order_side": "Buy", "amount": "100.00"}
    assert not validator.is_valid(base)
    assert validator.is_valid({**base, "payment_method_id": "x"})
    assert validator.is_valid({**base, "method_type": "SBP"})
    assert not validator.is_valid({**base, "payment_method_id": "x", "method_type": "SBP"})


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/order/?status=%00",
        "/api/v1/form/search?session_id=a%00b",
        "/api/v1/disputes/search?order_id=%00",
        "/api/v1/finance/transactions?transaction_type=%00",
    ],
)
def test_nul_in_a_query_is_a_400(shop, path):
    response = shop.get(path)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "malformed_request"


@pytest.mark.parametrize(
    "path",
    ["/api/v1/finance/transactions?x%00=1", "/api/v1/order/?errors=a%00b&errors=c"],
)
def test_a_query_parameter_the_endpoint_does_not_read_is_ignored_whatever_it_holds(shop, path):
    response = shop.get(path)
    assert response.status_code == 200, response.content


def test_nul_in_json_is_a_400_and_creates_nothing(shop, world):
    from orders.models import Order

    response = shop.post("/api/v1/order/", world.buy_body(client_order_id="a\x00b"))
    assert response.status_code == 400, response.content
    assert not Order.objects.exists()


def test_nul_in_a_form_field_is_a_400(shop, world):
    response = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": "x\x00", "amount": "10.00"}
    )
    assert response.status_code == 400, response.content


@pytest.mark.parametrize("key", [None, "deep-1"])
def test_a_body_nested_too_deeply_is_a_400_with_or_without_key(shop, key):
    headers = {"Idempotency-Key": key} if key else {}
    response = shop.post("/api/v1/order/", raw="[" * 100000, headers=headers)
    assert response.status_code == 400, response.content
    assert response.json()["success"] is False


def test_a_text_part_named_files_is_refused(shop, world):
    order = shop.post("/api/v1/order/", world.buy_body()).json()
    response = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": "10.00", "files": "{}"}
    )
    assert response.status_code == 400, response.content


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("put", "/api/v1/webhooks/endpoints", {"urls": []}),
        ("post", "/api/v1/order/", None),
        ("post", "/api/v1/form/create", None),
    ],
)
def test_a_key_the_endpoint_does_not_read_is_ignored_whatever_it_holds(demo, method, path, body):
    shop = ApiClient("demo-shop-key")  # the demo set's terminal, whose methods buy_body names
    if path == "/api/v1/order/":
        body = buy_body(demo)
    elif path == "/api/v1/form/create":
        body = {"order_data": {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000"}}
    body = {**body, "x\x00y": "a\x00b", "nested": {"\x00": ["\x00"]}}
    response = shop.request(method, path, data=json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content


def test_a_nul_in_a_field_that_is_read_is_still_a_400(shop):
    response = shop.request(
        "put",
        "/api/v1/webhooks/endpoints",
        data=json.dumps({"urls": ["https://example.com/\x00"]}),
        content_type="application/json",
    )
    assert response.status_code == 400, response.content


def query_parameter(openapi, path: str, name: str) -> dict:
    params = openapi["paths"][path]["get"]["parameters"]
    return next(p["schema"] for p in params if p["name"] == name)


@pytest.mark.parametrize(
    "path, name",
    [
        ("/api/v1/webhooks/deliveries", "event_id"),
        ("/api/v1/events", "starting_after"),
        ("/api/v1/events", "ending_before"),
        ("/api/v1/order/", "payment_method_id"),
        ("/api/v1/disputes/search", "order_id"),
        ("/api/v1/disputes/search", "dispute_id"),
    ],
)
@pytest.mark.parametrize("blank", ["\u00a0", " ", "\t \u2003"])
def test_a_blank_filter_is_refused_as_the_schema_says(openapi, shop, path, name, blank):
    schema = query_parameter(openapi, path, name)
    assert not jsonschema.Draft4Validator(schema).is_valid(blank)
    assert jsonschema.Draft4Validator(schema).is_valid(" x ")
    response = shop.get(path, {name: blank})
    assert response.status_code == 400, response.content
    assert response.json()["errors"][name]


@pytest.mark.parametrize(
    "path, name",
    [
        ("/api/v1/form/search", "session_id"),
        ("/api/v1/order/search-by-client-order-id", "id"),
    ],
)
def test_a_filter_that_finds_nothing_for_blank_says_so_in_the_schema(openapi, shop, path, name):
    assert jsonschema.Draft4Validator(query_parameter(openapi, path, name)).is_valid("\u00a0")
    assert shop.get(path, {name: "\u00a0"}).status_code == 200


@pytest.mark.parametrize(
    "component, field",
    [
        ("OrderCreateInRequest", "payment_method_id"),
        ("OrderCreateInRequest", "nspk_code"),
        ("OrderCreateInRequest", "user_id"),
        ("FormOrderDataInRequest", "user_id"),
        ("DisputeCreateInRequest", "order_id"),
    ],
)
def test_a_blank_body_field_is_refused_as_the_schema_says(openapi, demo, component, field):
    shop = ApiClient("demo-shop-key")  # the demo set's terminal, whose methods buy_body names
    blank = "\u0085\u001e "
    prop = request_schema(openapi, component)["properties"][field]
    assert not jsonschema.Draft4Validator(prop).is_valid(blank)
    if component == "OrderCreateInRequest":
        response = shop.post("/api/v1/order/", {**buy_body(demo), field: blank})
    elif component == "FormOrderDataInRequest":
        order_data = {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000", field: blank}
        response = shop.post("/api/v1/form/create", {"order_data": order_data})
    else:
        response = shop.post_multipart("/api/v1/disputes/create", {field: blank, "amount": "10"})
    assert response.status_code == 400, response.content
    assert "blank" in response.json()["message"]


URL_FIELDS = [
    ("OrderCreateInRequest", "webhook_url"),
    ("OrderCreateInRequest", "redirect_url"),
    ("FormCreateInRequest", "return_url"),
]


def _url_schema(openapi, component: str, field: str) -> dict:
    schema = request_schema(openapi, component)["properties"][field]
    return schema["anyOf"][0] if "anyOf" in schema else schema


@pytest.mark.parametrize(("component", "field"), URL_FIELDS)
def test_a_url_field_states_its_pattern_and_length(openapi, component, field):
    from core.formats import HTTP_URL_PATTERN

    schema = _url_schema(openapi, component, field)
    assert schema["pattern"] == HTTP_URL_PATTERN
    assert schema["maxLength"] == (512 if field == "webhook_url" else 2048)
    urls = request_schema(openapi, "EndpointsInRequest")["properties"]["urls"]["items"]
    assert (urls["pattern"], urls["maxLength"]) == (HTTP_URL_PATTERN, 512)


@pytest.mark.parametrize(
    "url",
    ["Ed:", "a:b", "mailto:x@example.com", "ftp://example.com/", "http://", "https:///x"],
)
def test_a_uri_that_is_no_http_url_is_outside_the_pattern_and_refused(openapi, shop, world, url):
    """Such a URI is a valid `format: uri`: the pattern is what tells a client, as the
    server does, that only an http(s) URL with a host is taken."""
    from core.formats import HTTP_URL_PATTERN

    assert not re.search(HTTP_URL_PATTERN, url)
    response = shop.post("/api/v1/order/", {**world.buy_body(), "redirect_url": url})
    assert response.status_code == 400, response.content
    assert "redirect_url" in response.json()["errors"]


@pytest.mark.parametrize(
    "url",
    ["http://a", "HTTPS://shop.example.com:8443/return?x=1#top", "https://x.y/путь?q=%20"],
)
def test_a_url_the_pattern_describes_is_taken(shop, world, url):
    from core.formats import HTTP_URL_PATTERN

    assert re.search(HTTP_URL_PATTERN, url)
    response = shop.post("/api/v1/order/", {**world.buy_body(), "return_url": url})
    assert response.status_code == 201, response.content
