import pytest

from conftest import buy_body, sell_body
from finance.models import Balance
from forms_ui.models import FormSession
from orders.models import Order

URL = "/api/v1/order/"


@pytest.fixture
def shop(world):
    return world.api


def test_buy_on_form_terminal_returns_form_url_and_session(form_shop, world, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example"
    body = buy_body(
        world,
        redirect_url="https://shop.example/done",
        support_url="https://shop.example/help",
        return_url="https://shop.example/cart",
        customer_bank="VTB",
    )
    response = form_shop.post(URL, body)
    assert response.status_code == 201, response.content
    order = response.json()
    session = FormSession.objects.get(order_id=order["id"])
    assert order["form_url"] == f"https://pay.example/form/?session_id={session.pk}"
    assert order["customer_bank"] == "vtb"
    assert session.state == "requisites_found"
    assert (session.redirect_url, session.support_url, session.return_url) == (
        "https://shop.example/done",
        "https://shop.example/help",
        "https://shop.example/cart",
    )
    assert form_shop.get(f"{URL}{order['id']}").json()["order"]["form_url"] == order["form_url"]


def test_sell_on_form_terminal_is_400_before_funds_are_checked(form_shop, world):
    # the form terminal has 0.00: a funds check would answer 402
    response = form_shop.post(URL, sell_body(world))
    assert response.status_code == 400
    assert Balance.objects.get(terminal=form_shop.terminal).frozen == 0


def test_no_requisites_is_the_usual_error_and_no_session(form_shop, world):
    response = form_shop.post(URL, buy_body(world, method="Ozon Bank SBP"))
    assert response.status_code == 500
    assert response.json()["message"].startswith("No available traders")
    assert FormSession.objects.count() == 0 and Order.objects.count() == 0


def test_h2h_terminal_orders_have_no_form_url(shop, world):
    order = shop.post(URL, buy_body(world)).json()
    assert "form_url" not in order


def test_session_of_an_order_reports_unique_amount_and_the_bank(form_shop, world, client):
    body = buy_body(world, method="SBP", unique_amount=True, customer_bank="SBERBANK")
    order = form_shop.post(URL, body).json()
    item = form_shop.get("/api/v1/form/search", {"order_id": order["id"]}).json()["items"][0]
    assert item["unique_amount"] is True
    assert item["state"] == "requisites_found" and item["selection"] is False
    assert item["search_count"] == 1 and item["ip_address"] == "127.0.0.1"
    assert item["merchant_name"] == form_shop.terminal.name and item["amount"] == order["amount"]
    assert item["payment_method_type"] == "SBP"
    html = client.get("/form/", {"session_id": item["session_id"]}).content.decode()
    assert f'data-testid="requisite-account">{order["holder_account"]}<' in html
    assert "Откройте СберБанк Онлайн" in html and "ВТБ Онлайн" not in html


def test_session_of_an_order_follows_its_cancellation(form_shop, world, client):
    order = form_shop.post(URL, buy_body(world, return_url="https://shop.example/back")).json()
    form_shop.post(f"{URL}{order['id']}/cancel")
    session = FormSession.objects.get(order_id=order["id"])
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="failure-screen"' in html and 'data-testid="return-link"' not in html
