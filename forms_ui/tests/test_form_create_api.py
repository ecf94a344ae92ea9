from decimal import Decimal

import pytest

from forms_ui.models import FormSession
from orders.models import Order

URL = "/api/v1/form/create"


@pytest.fixture
def shop(world):
    return world.api


def body(**order_data):
    data = {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000"}
    data.update(order_data)
    return {"order_data": data}


def test_create_without_button_offers_method_choice(shop, world, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example"
    response = shop.post(
        URL, {**body(), "redirect_url": "https://shop.example/ok", "support_url": None}
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["success"] is True
    form = data["form_data"]
    assert len(form["session_id"]) >= 32
    assert form["form_url"] == f"https://pay.example/form/?session_id={form['session_id']}"
    assert form["order_data"] == {
        "client_order_id": "f-1",
        "order_side": "Buy",
        "payment_method_id": None,
        "amount": "1000.00",
        "customer_bank": None,
        "unique_amount": False,
    }
    assert (form["redirect_url"], form["support_url"], form["return_url"]) == (
        "https://shop.example/ok",
        None,
        None,
    )
    session = FormSession.objects.get(pk=form["session_id"])
    assert session.state == "method_selection" and session.selection is True
    assert Order.objects.count() == 0


def test_empty_links_are_no_links(shop, world):
    """api.md: "When empty, no redirect" (no support button, not displayed): an empty
    string is taken, echoed, and the page shows none of the three."""
    links = {"redirect_url": "", "support_url": "", "return_url": ""}
    response = shop.post(URL, {**body(), **links})
    assert response.status_code == 201, response.content
    form = response.json()["form_data"]
    assert {name: form[name] for name in links} == links
    html = shop.get(f"/form/?session_id={form['session_id']}").content.decode()
    assert 'data-testid="countdown"' not in html
    assert 'data-testid="return-link"' not in html and 'data-testid="support-link"' not in html


@pytest.mark.parametrize("button", ["SberPay", "sberpay", "SBERPAY"])
def test_create_with_button_finds_requisites_at_once(shop, world, button):
    response = shop.post(URL, body(button_name=button))
    assert response.status_code == 201, response.content
    form = response.json()["form_data"]
    assert form["order_data"]["payment_method_id"] == world.method_id("Sberbank SBP")
    session = FormSession.objects.get(pk=form["session_id"])
    assert session.button_name == "SberPay"
    assert session.state == "requisites_found" and session.selection is False
    assert session.order.method.name == "Sberbank SBP"
    assert session.search_count == 1


def test_sell_is_400(shop, world):
    assert shop.post(URL, body(order_side="Sell")).status_code == 400


def test_button_not_offered_by_the_terminal_is_400(shop, world):
    response = shop.post(URL, body(button_name="VTBPay"))
    assert response.status_code == 400
    assert FormSession.objects.count() == 0


def test_unknown_button_is_400(shop, world):
    assert shop.post(URL, body(button_name="MirPay")).status_code == 400


@pytest.mark.parametrize(("button", "amount"), [("SberPay", "99.99"), ("TPay", "300000.01")])
def test_amount_the_preselected_method_cannot_take_is_409(shop, world, button, amount):
    response = shop.post(URL, body(button_name=button, amount=amount))
    assert response.status_code == 409
    assert response.json()["message"].startswith(
        "Expectation Failed. Amount for the chosen payment method doesn't meet limits"
    )
    assert FormSession.objects.count() == 0 and Order.objects.count() == 0


def test_amount_no_method_can_take_is_409(shop, world):
    response = shop.post(URL, body(amount="99"))
    assert response.status_code == 409
    assert response.json()["code"] == "amount_out_of_limits"
    assert FormSession.objects.count() == 0


def test_form_not_activated_is_409(closed_shop, world):
    response = closed_shop.post(URL, body())
    assert response.status_code == 409
    assert response.json()["code"] == "form_not_activated"


def test_antifraud_cap_is_429(shop, world):
    for i in range(3):
        assert (
            shop.post(URL, body(button_name="TPay", amount=1000 + i, user_id="u")).status_code
            == 201
        )
    response = shop.post(URL, body(button_name="TPay", amount=2000, user_id="u"))
    assert response.status_code == 429
    assert (
        response.json()["message"]
        == "User has reached the maximum limit of pending orders. Please try again later"
    )


def test_rate_limit_is_429(shop, world, settings):
    from django.core.cache import cache

    cache.clear()
    settings.API_RATE_LIMIT = "2/min"
    codes = [shop.post(URL, body(amount=1000 + i)).status_code for i in range(3)]
    assert codes == [201, 201, 429]
    cache.clear()


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"order_data": "x"},
        body(amount="0"),
        body(amount="1.001"),
        body(client_order_id=""),
        body(client_order_id="x" * 65),
        body(order_side="Deposit"),
        {**body(), "redirect_url": "ftp://x"},
        {**body(), "return_url": "not a url"},
        body(unique_amount="maybe"),
        body(customer_bank="monobank"),
    ],
)
def test_bad_bodies_are_400(shop, world, payload):
    response = shop.post(URL, payload)
    assert response.status_code == 400
    assert response.json()["success"] is False
    assert FormSession.objects.count() == 0


def test_customer_bank_in_any_case_is_stored_lowercase(shop, world):
    response = shop.post(URL, body(customer_bank="SberBank"))
    assert response.json()["form_data"]["order_data"]["customer_bank"] == "sberbank"


def test_amount_is_returned_with_two_decimals(shop, world):
    assert (
        shop.post(URL, body(amount=1500.5)).json()["form_data"]["order_data"]["amount"] == "1500.50"
    )


def test_unique_amount_session_gets_a_shifted_amount_when_needed(shop, world):
    for _ in range(2):
        shop.post(
            "/api/v1/order/",
            {
                "client_order_id": "x",
                "order_side": "Buy",
                "payment_method_id": world.method_id("Sberbank SBP"),
                "amount": 1000,
            },
        )
    response = shop.post(URL, body(button_name="SberPay", unique_amount=True))
    session = FormSession.objects.get(pk=response.json()["form_data"]["session_id"])
    assert session.order.amount == Decimal("1001.00")
    item = shop.get("/api/v1/form/search", {"session_id": session.pk}).json()["items"][0]
    assert item["amount"] == "1001.00"


def test_idempotent_replay(shop, world):
    first = shop.post(URL, body(button_name="SberPay"), headers={"Idempotency-Key": "form-1"})
    second = shop.post(URL, body(button_name="SberPay"), headers={"Idempotency-Key": "form-1"})
    assert first.content == second.content and second["Idempotent-Replayed"] == "true"
    assert FormSession.objects.count() == 1


def test_antifraud_counts_the_users_h2h_orders_too(shop, world):
    for i in range(3):
        order = {
            "client_order_id": f"h-{i}",
            "order_side": "Buy",
            "payment_method_id": world.method_id("VTB SBP"),
            "amount": 1000 + i,
            "user_id": "u-9",
        }
        assert shop.post("/api/v1/order/", order).status_code == 201
    response = shop.post(URL, body(user_id="u-9"))
    assert response.status_code == 429
    assert response.json()["message"].startswith("User has reached the maximum limit")
    assert shop.post(URL, body(user_id="u-10")).status_code == 201


def test_button_of_the_form_terminal_maps_to_its_bank(form_shop, world):
    response = form_shop.post(URL, body(button_name="vtbpay"))
    assert response.status_code == 201
    assert response.json()["form_data"]["order_data"]["payment_method_id"] == world.method_id(
        "VTB SBP"
    )


def test_unknown_customer_bank_names_the_field_and_the_allowed_banks(shop, world):
    response = shop.post(URL, body(customer_bank="monobank"))
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
    assert response.json()["errors"] == {
        "order_data.customer_bank": ["Allowed: alfabank, sberbank, tinkoff, vtb"]
    }
    assert FormSession.objects.count() == 0
