"""The payer's edge screens as the server writes them (traders.md §24); the browser
tests (test_browser_edges.py) check what the script makes of them."""

import re
from datetime import UTC, datetime

import pytest

from forms_ui.models import FormSession
from orders.models import Order
from orders.services import order_expire_now
from orders.tests.world import trader_for


@pytest.fixture
def shop(world):
    return world.api


def create(client, urls=None, **order_data) -> FormSession:
    data = {"client_order_id": "shop-77", "order_side": "Buy", "amount": "3100"}
    data.update(order_data)
    response = client.post("/api/v1/form/create", {"order_data": data, **(urls or {})})
    assert response.status_code == 201, response.content
    return FormSession.objects.get(pk=response.json()["form_data"]["session_id"])


def page(client, session, lang="ru") -> str:
    return client.get("/form/", {"session_id": session.pk, "lang": lang}).content.decode()


def test_the_amount_to_transfer_is_written_as_the_header_writes_it_and_copied_bare(shop, client):
    session = create(shop, button_name="SberPay")
    html = page(client, session)
    assert 'data-testid="requisite-amount">3\u00a0100,00\u00a0₽<' in html
    assert 'data-copy="3100.00"' in html
    html = page(client, session, "en")
    assert 'data-testid="requisite-amount">3,100.00\u00a0₽<' in html
    assert 'data-copy="3100.00"' in html


def test_the_screen_that_waits_for_the_trader_has_no_countdown_and_no_exact_amount_line(
    shop, client
):
    session = create(shop, button_name="SberPay")
    html = page(client, session)
    assert 'data-testid="time-left"' in html and 'data-testid="exact-amount"' in html
    client.post("/form/paid", {"session_id": session.pk})
    html = page(client, session)
    assert "Проверяем поступление платежа" in html
    assert 'data-testid="time-left"' not in html and "data-seconds-left" not in html
    assert 'data-testid="exact-amount"' not in html
    assert "Переведите ровно" not in html and "Отправьте ровно" not in html


def test_an_order_that_runs_out_after_i_have_paid_promises_the_payment_and_names_the_order(
    shop, client
):
    urls = {"support_url": "https://shop.example/help"}
    session = create(shop, urls, button_name="SberPay")
    client.post("/form/paid", {"session_id": session.pk})
    order_expire_now(order_id=session.order_id, actor="expiry")
    html = page(client, session)
    assert 'data-testid="failure-screen" data-reason="expired"' in html
    assert 'data-testid="paid-expired"' in html
    assert "будет найден и зачислен" in html
    assert "номер заказа shop-77" in html
    assert 'data-testid="contact-support"' in html and 'href="https://shop.example/help"' in html
    assert "Создайте новый платёж" not in html
    html = page(client, session, "en")
    assert "will be found and credited" in html and "order number shop-77" in html
    assert "start a new payment" not in html


def test_an_order_that_runs_out_before_i_have_paid_still_asks_for_a_new_payment(shop, client):
    session = create(shop, button_name="SberPay")
    order_expire_now(order_id=session.order_id, actor="expiry")
    html = page(client, session)
    assert 'data-testid="paid-expired"' not in html
    assert "Создайте новый платёж" in html


def test_no_requisites_on_a_button_session_does_not_suggest_another_method(shop, client):
    session = create(shop, button_name="SberPay")
    FormSession.objects.filter(pk=session.pk).update(state="requisites_not_found")
    for lang, other_method in (("ru", "другой способ"), ("en", "another payment method")):
        html = page(client, session, lang)
        assert 'data-reason="requisites_not_found"' in html
        assert other_method not in html.lower()


def test_no_requisites_after_the_payers_own_choice_still_suggests_another_method(
    shop, client, world, settings
):
    settings.FORM_SEARCH_WINDOW_SECONDS = 0
    session = create(shop)
    client.post(
        "/form/choose", {"session_id": session.pk, "method_id": world.method_id("Ozon Bank SBP")}
    )
    assert "another payment method" in page(client, session, "en")


def test_the_receipts_time_is_moscow_time_before_the_script_runs(shop, client):
    session = create(shop, button_name="SberPay")
    trader_for({"id": str(session.order_id)}).post(
        f"/api/v1/trader/orders/{session.order_id}/confirm"
    )
    Order.objects.filter(pk=session.order_id).update(
        closed_at=datetime(2026, 11, 25, 12, 21, tzinfo=UTC)
    )
    html = page(client, session)
    time = re.search(
        r'<time datetime="([^"]+)" data-local-time data-testid="paid-at">([^<]+)<', html
    )
    assert time, html
    assert datetime.fromisoformat(time.group(1)) == datetime(2026, 11, 25, 12, 21, tzinfo=UTC)
    assert time.group(2) == "25.11.2026 15:21 (МСК)"
    assert "25.11.2026 15:21 (Moscow time)" in page(client, session, "en")
