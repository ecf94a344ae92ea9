from decimal import Decimal

import pytest

from conftest import buy_body, sell_body
from finance.models import Balance
from orders.models import Order

URL = "/api/v1/order/"


@pytest.fixture
def shop(world):
    return world.api


def balance_of(terminal):
    return Balance.objects.get(terminal=terminal)


def test_buy_by_payment_method_id_is_201_with_requisite_and_fee(shop, world):
    response = shop.post(URL, buy_body(world, amount="1000.00", customer_name="Ivan"))
    assert response.status_code == 201, response.content
    order = response.json()
    assert order["status"] == "Pending"
    assert order["order_side"] == "Buy"
    assert order["amount"] == "1000.00"
    assert order["fee"] == "5.00"
    assert order["fixed_fee"] is None
    assert order["fee_amount"] == "50.00"
    assert order["paid_amount"] is None
    assert order["method_name"] == "Sberbank SBP"
    assert order["method_type"] == "SBP"
    assert order["initial_method_id"] == world.method_id("Sberbank SBP")
    held = {r.account: r.holder_name for r in world.requisites if r.method.name == "Sberbank SBP"}
    assert held[order["holder_account"]] == order["holder_name"]
    assert order["customer_account"] is None
    assert order["customer_name"] == "Ivan"
    assert order["currency"] == "RUB"
    assert order["created_at"].endswith("Z") and "." in order["created_at"]
    assert order["payment_link"].startswith("https://")
    assert "form_url" not in order


def test_aggregate_sbp_matches_a_bank_method(shop, world):
    response = shop.post(
        URL, {"client_order_id": "a", "order_side": "Buy", "method_type": "SBP", "amount": 500}
    )
    assert response.status_code == 201, response.content
    order = response.json()
    assert order["initial_method_id"] == world.method_id("SBP")
    assert order["method_id"] != order["initial_method_id"]
    assert order["method_name"] in {"Sberbank SBP", "T-Bank SBP"}


def test_method_type_with_nspk_code_picks_that_bank(shop, world):
    body = {
        "client_order_id": "a",
        "order_side": "Buy",
        "method_type": "SBP",
        "nspk_code": "100000000004",
        "amount": 700,
    }
    response = shop.post(URL, body)
    assert response.status_code == 201
    assert response.json()["method_name"] == "T-Bank SBP"


def test_unknown_nspk_code_is_404(shop, world):
    body = {
        "client_order_id": "a",
        "order_side": "Buy",
        "method_type": "SBP",
        "nspk_code": "999",
        "amount": 700,
    }
    response = shop.post(URL, body)
    assert response.status_code == 404
    assert response.json()["message"] == "Payment method not found"


def test_no_payment_method_is_400_with_exact_message(shop, world):
    response = shop.post(URL, {"client_order_id": "a", "order_side": "Buy", "amount": 100})
    assert response.status_code == 400
    assert response.json()["message"] == "Payment method ID or method type is required"
    assert response.json()["success"] is False
    assert "payment_method_id" in response.json()["errors"]


def test_sell_without_customer_account_is_400_with_exact_message(shop, world):
    body = sell_body(world)
    del body["customer_account"]
    response = shop.post(URL, body)
    assert response.status_code == 400
    assert response.json()["message"] == "Customer account is required"
    assert "customer_account" in response.json()["errors"]


@pytest.mark.parametrize("account", ["", "   "])
def test_sell_with_blank_customer_account_gets_the_required_message(shop, world, account):
    response = shop.post(URL, sell_body(world, account=account))
    assert response.status_code == 400
    assert response.json()["message"] == "Customer account is required"


def test_sell_over_available_balance_is_402(shop, world):
    response = shop.post(URL, sell_body(world, amount="99990.00"))
    assert response.status_code == 402
    assert response.json()["message"].startswith("Insufficient funds")
    assert balance_of(world.shop).frozen == 0


def test_unknown_payment_method_is_404(shop, world):
    body = buy_body(world)
    body["payment_method_id"] = "00000000-0000-0000-0000-000000000000"
    response = shop.post(URL, body)
    assert response.status_code == 404
    assert response.json()["message"] == "Payment method not found"


def test_malformed_payment_method_id_is_404(shop, world):
    body = buy_body(world)
    body["payment_method_id"] = "not-a-uuid"
    assert shop.post(URL, body).status_code == 404


def test_inactive_method_is_404(shop, world):
    response = shop.post(URL, buy_body(world, method="Legacy card", amount=1000))
    assert response.status_code == 404
    assert response.json()["message"] == "Payment method not found"


@pytest.mark.parametrize("amount", ["99.99", "300000.01"])
def test_amount_outside_method_limits_is_409(shop, world, amount):
    response = shop.post(URL, buy_body(world, amount=amount))
    assert response.status_code == 409
    assert response.json()["message"].startswith(
        "Expectation Failed. Amount for the chosen payment method doesn't meet limits"
    )


def test_range_bounds_are_inclusive(shop, world):
    assert shop.post(URL, buy_body(world, amount="100")).status_code == 201
    assert shop.post(URL, buy_body(world, amount="300000")).status_code == 201


@pytest.mark.parametrize("account", ["2200000000000665", "2200 0000 0000 0665"])
def test_blacklisted_card_is_409(shop, world, account):
    response = shop.post(URL, sell_body(world, method="Bank card", amount="2000", account=account))
    assert response.status_code == 409
    assert response.json()["message"] == "Customer account is blacklisted"


def test_blacklisted_phone_in_another_spelling_is_409(shop, world):
    response = shop.post(URL, sell_body(world, account="8 (999) 000-66-66"))
    assert response.status_code == 409
    assert response.json()["message"] == "Customer account is blacklisted"


def test_antifraud_cap_is_429_with_exact_message(shop, world):
    for i in range(3):
        response = shop.post(URL, buy_body(world, amount=1000 + i, user_id="u-1"))
        assert response.status_code == 201
    response = shop.post(URL, buy_body(world, amount=2000, user_id="u-1"))
    assert response.status_code == 429
    assert (
        response.json()["message"]
        == "User has reached the maximum limit of pending orders. Please try again later"
    )
    # another user is not affected
    assert shop.post(URL, buy_body(world, amount=2000, user_id="u-2")).status_code == 201


def test_antifraud_cap_can_be_overridden_per_terminal(shop, world):
    world.shop.antifraud_max_pending = 1
    world.shop.save()
    assert shop.post(URL, buy_body(world, amount=1000, user_id="u")).status_code == 201
    assert shop.post(URL, buy_body(world, amount=1001, user_id="u")).status_code == 429


def test_no_requisites_is_500_with_documented_message(shop, world):
    response = shop.post(URL, buy_body(world, method="Ozon Bank SBP"))
    assert response.status_code == 500
    assert response.json()["message"].startswith(
        "No available traders that match order requirements"
    )


def test_third_same_amount_buy_on_one_bank_is_500(shop, world):
    first = shop.post(URL, buy_body(world, amount=1500)).json()
    second = shop.post(URL, buy_body(world, amount=1500)).json()
    assert first["holder_account"] != second["holder_account"]
    response = shop.post(URL, buy_body(world, amount=1500))
    assert response.status_code == 500


def test_unique_amount_moves_to_next_free_amount(shop, world):
    shop.post(URL, buy_body(world, amount=1500))
    shop.post(URL, buy_body(world, amount=1500))
    response = shop.post(URL, buy_body(world, amount=1500, unique_amount=True))
    assert response.status_code == 201
    order = response.json()
    assert Decimal(order["amount"]) == Decimal("1501.00")
    assert order["fee_amount"] == "75.05"


def test_unique_amount_gives_up_after_nine_steps(shop, world):
    for step in range(10):
        for _ in range(2):
            assert shop.post(URL, buy_body(world, amount=1500 + step)).status_code == 201
    response = shop.post(URL, buy_body(world, amount=1500, unique_amount=True))
    assert response.status_code == 500


def test_sell_reserves_amount_plus_fee(shop, world):
    response = shop.post(URL, sell_body(world, amount="1000"))
    assert response.status_code == 201, response.content
    order = response.json()
    assert order["fee"] == "3.00"
    assert order["fixed_fee"] == 50
    assert order["fee_amount"] == "80.00"
    assert order["customer_account"] == "+79991234567"
    balance = balance_of(world.shop)
    assert balance.available == Decimal("98920.00")
    assert balance.frozen == Decimal("1080.00")


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("89991234567", "+79991234567"),
        ("7 999 123-45-67", "+79991234567"),
        ("+7 (999) 123-45-67", "+79991234567"),
    ],
)
def test_sbp_customer_account_is_normalised(shop, world, given, stored):
    response = shop.post(URL, sell_body(world, account=given))
    assert response.status_code == 201
    assert response.json()["customer_account"] == stored


def test_card_customer_account_is_normalised(shop, world):
    response = shop.post(
        URL, sell_body(world, method="Bank card", amount=2000, account="4111-1111 1111-1111")
    )
    assert response.status_code == 201
    assert response.json()["customer_account"] == "4111111111111111"


@pytest.mark.parametrize(
    ("method", "account"),
    [
        ("Sberbank SBP", "12345"),
        ("Sberbank SBP", "+1 555 123 4567"),
        ("Bank card", "4111111111111112"),
        ("Bank card", "4111"),
    ],
)
def test_malformed_customer_account_is_400(shop, world, method, account):
    response = shop.post(URL, sell_body(world, method=method, amount=2000, account=account))
    assert response.status_code == 400
    assert "customer_account" in response.json()["message"]


@pytest.mark.parametrize(
    ("method", "account"),
    [
        ("Bank card", "\uff12\uff12\uff10\uff10" + "\uff10" * 9 + "\uff16\uff16\uff15"),
        ("Bank card", "\u0662\u0662\u0660\u0660" + "\u0660" * 9 + "\u0666\u0666\u0665"),
        ("Sberbank SBP", "+7\u0669\u0669\u0669\u0660\u0660\u0660\u0666\u0666\u0666\u0666"),
    ],
)
def test_digits_of_other_scripts_are_not_an_account(shop, world, method, account):
    """Fullwidth and Arabic-Indic spellings of the blacklisted card and phone."""
    response = shop.post(URL, sell_body(world, method=method, amount=2000, account=account))
    assert response.status_code == 400
    assert "customer_account" in response.json()["errors"]
    assert Order.objects.count() == 0


def test_customer_account_on_buy_is_400(shop, world):
    response = shop.post(URL, buy_body(world, customer_account="+79991234567"))
    assert response.status_code == 400


def test_aggregate_sbp_on_sell_is_400(shop, world):
    body = sell_body(world)
    body.pop("payment_method_id")
    body["method_type"] = "SBP"
    response = shop.post(URL, body)
    assert response.status_code == 400
    assert response.json()["errors"]


def test_sell_on_method_without_sell_range_is_409(shop, world):
    response = shop.post(URL, sell_body(world, method="Ozon Bank SBP"))
    assert response.status_code == 409


def test_payment_method_id_with_method_type_is_400(shop, world):
    assert shop.post(URL, buy_body(world, method_type="SBP")).status_code == 400


def test_nspk_code_without_method_type_is_400(shop, world):
    assert shop.post(URL, buy_body(world, nspk_code="100000000111")).status_code == 400


@pytest.mark.parametrize(
    "amount",
    [0, -5, "0.00", "10.001", "abc", "NaN", "Infinity", True, None, "", [1], {"a": 1}, "1e400"]
    + ["1_000", "1e3", "\uff11\uff10\uff10\uff10", "\u0661\u0660\u0660\u0660", "0x10"],
)
def test_bad_amount_is_400(shop, world, amount):
    response = shop.post(URL, buy_body(world, amount=amount))
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False and body["code"] == "validation_error"
    assert "amount" in body["errors"]


def test_nan_literal_in_json_is_400(shop, world):
    raw = '{"client_order_id": "a", "order_side": "Buy", "method_type": "SBP", "amount": NaN}'
    assert shop.post(URL, raw=raw).status_code == 400


def test_amount_as_numeric_string_and_json_number_are_equal(shop, world):
    first = shop.post(URL, buy_body(world, amount="1234.5")).json()
    second = shop.post(URL, buy_body(world, method="T-Bank SBP", amount=1234.5)).json()
    assert first["amount"] == second["amount"] == "1234.50"


@pytest.mark.parametrize("client_order_id", ["", "x" * 65, None])
def test_bad_client_order_id_is_400(shop, world, client_order_id):
    assert shop.post(URL, buy_body(world, client_order_id=client_order_id)).status_code == 400


def test_client_order_id_keeps_any_characters(shop, world):
    weird = "<script>alert('x')</script> ✓ \"quotes\""
    response = shop.post(URL, buy_body(world, client_order_id=weird))
    assert response.status_code == 201
    assert response.json()["client_order_id"] == weird


@pytest.mark.parametrize("side", ["buy", "BUY", "Deposit", ""])
def test_unknown_order_side_is_400(shop, world, side):
    body = buy_body(world)
    body["order_side"] = side
    assert shop.post(URL, body).status_code == 400


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/hook", "not a url", "javascript:alert(1)", "http://" + "a" * 510 + ".com"],
)
def test_bad_webhook_url_is_400(shop, world, url):
    response = shop.post(URL, buy_body(world, webhook_url=url))
    assert response.status_code == 400
    assert "webhook_url" in response.json()["errors"]


def test_webhook_url_is_echoed(shop, world):
    response = shop.post(URL, buy_body(world, webhook_url="https://merchant.example/hooks/1"))
    assert response.json()["webhook_url"] == "https://merchant.example/hooks/1"


def test_unparseable_boolean_is_400(shop, world):
    assert shop.post(URL, buy_body(world, unique_amount="maybe")).status_code == 400


def test_malformed_json_is_400_json(shop, world):
    response = shop.post(URL, raw="{not json")
    assert response.status_code == 400
    assert response.json()["success"] is False


@pytest.mark.parametrize("depth", [1000, 100000])
def test_deeply_nested_json_is_400_not_500(shop, world, depth):
    for raw in [
        "[" * depth + "]" * depth,
        '{"client_order_id": ' + "[" * depth + "]" * depth + "}",
    ]:
        response = shop.post(URL, raw=raw)
        assert response.status_code == 400
        assert response.json()["code"] == "malformed_request"


def test_body_that_is_not_an_object_is_400(shop, world):
    assert shop.post(URL, raw="[1, 2]").status_code == 400


def test_rejected_request_creates_nothing(shop, world):
    shop.post(URL, sell_body(world, amount="99990.00"))
    shop.post(URL, buy_body(world, method="Ozon Bank SBP"))
    assert Order.objects.count() == 0
    assert balance_of(world.shop).available == Decimal("100000.00")


def test_trailing_slash_is_optional(shop, world):
    assert shop.post("/api/v1/order", buy_body(world)).status_code == 201
