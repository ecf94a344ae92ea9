"""The payer's edge screens in a real browser (traders.md §24): the receipt's time in
the payer's own zone, the amount copied bare, the waiting screen without a countdown,
an order that runs out after "I have paid", a button session without requisites."""

import os
import re
import shutil
from datetime import UTC, datetime

import pytest

from conftest import ApiClient, trader_for
from forms_ui.models import FormSession
from orders.models import Order
from orders.services import order_expire_now

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
]
PHONE = {"width": 390, "height": 844}


def create_form(urls=None, **extra) -> dict:
    order_data = {"client_order_id": "shop-77", "order_side": "Buy", "amount": "3100.00", **extra}
    response = ApiClient("demo-shop-key").post(
        "/api/v1/form/create", {"order_data": order_data, **(urls or {})}
    )
    assert response.status_code == 201, response.content
    return response.json()["form_data"]


def order_id_of(form) -> str:
    return str(FormSession.objects.get(pk=form["session_id"]).order_id)


@pytest.fixture
def open_page(browser):
    contexts = []

    def open_(url, **options):
        context = browser.new_context(
            viewport=PHONE, is_mobile=True, has_touch=True, locale="ru-RU", **options
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15000)
        page.goto(url)
        return page

    yield open_
    for context in contexts:
        context.close()


def paid_at_12_21_utc(form) -> None:
    order_id = order_id_of(form)
    confirmed = trader_for({"id": order_id}).post(f"/api/v1/trader/orders/{order_id}/confirm")
    assert confirmed.status_code == 200, confirmed.content
    Order.objects.filter(pk=order_id).update(closed_at=datetime(2026, 11, 25, 12, 21, tzinfo=UTC))


def test_the_receipts_time_is_the_payers_own_with_the_zone_named(live, open_page):
    form = create_form(button_name="SberPay")
    paid_at_12_21_utc(form)
    page = open_page(form["form_url"], timezone_id="Asia/Yekaterinburg")
    page.get_by_test_id("success-screen").wait_for()
    assert page.get_by_test_id("paid-at").inner_text() == (
        "25.11.2026 17:21 (Asia/Yekaterinburg, UTC+5)"
    )
    page = open_page(form["form_url"], timezone_id="America/New_York")
    assert page.get_by_test_id("paid-at").inner_text() == (
        "25.11.2026 07:21 (America/New_York, UTC-5)"
    )


def test_the_receipts_time_is_moscow_time_without_scripts(live, open_page):
    form = create_form(button_name="SberPay")
    paid_at_12_21_utc(form)
    page = open_page(form["form_url"], timezone_id="Asia/Yekaterinburg", java_script_enabled=False)
    assert page.get_by_test_id("paid-at").inner_text() == "25.11.2026 15:21 (МСК)"


def test_the_amount_is_shown_as_the_header_shows_it_and_copied_bare(live, open_page):
    form = create_form(button_name="SberPay")
    page = open_page(form["form_url"], permissions=["clipboard-read", "clipboard-write"])
    amount = page.get_by_test_id("requisite-amount")
    assert amount.inner_text() == "3\u00a0100,00\u00a0₽"
    assert page.locator(".amount-line .big").inner_text() == amount.inner_text()
    page.locator("button.copy[data-copy='3100.00']").click()
    page.wait_for_function(
        "document.querySelector(\"button.copy[data-copy='3100.00']\").textContent === 'Скопировано'"
    )
    assert page.evaluate("navigator.clipboard.readText()") == "3100.00"


def test_the_demo_holder_is_written_in_cyrillic(live, open_page):
    form = create_form(button_name="SberPay")
    page = open_page(form["form_url"])
    holder = page.locator("dl.requisites dd").nth(2).inner_text().splitlines()[0]
    assert re.fullmatch(r"[А-ЯЁ][а-яё]+ [А-ЯЁ]\.", holder), holder


def test_the_screen_that_waits_for_the_trader_has_no_countdown(live, open_page):
    form = create_form(button_name="SberPay")
    page = open_page(form["form_url"])
    assert page.get_by_test_id("time-left").is_visible()
    assert page.get_by_test_id("exact-amount").is_visible()
    page.get_by_test_id("paid-button").click()
    page.wait_for_selector("text=Проверяем поступление платежа")
    assert page.get_by_test_id("time-left").count() == 0
    assert page.get_by_test_id("exact-amount").count() == 0
    assert page.get_by_test_id("requisite-amount").is_visible()


def test_an_order_that_runs_out_after_i_have_paid_never_asks_for_a_new_payment(live, open_page):
    demo, base = live
    form = create_form({"support_url": f"{base}/healthz?help=1"}, button_name="SberPay")
    page = open_page(form["form_url"])
    page.get_by_test_id("paid-button").click()
    page.wait_for_selector("text=Проверяем поступление платежа")
    order_expire_now(order_id=order_id_of(form), actor="expiry")
    # The waiting page polls and shows the outcome by itself.
    page.get_by_test_id("paid-expired").wait_for()
    text = page.get_by_test_id("failure-screen").inner_text()
    assert "будет найден и зачислен" in text and "shop-77" in text
    assert "новый платёж" not in text
    assert page.get_by_test_id("contact-support").get_attribute("href") == (
        f"{base}/healthz?help=1"
    )


def test_no_requisites_on_a_button_session_offers_no_other_method(live, open_page):
    form = create_form(button_name="SberPay")
    FormSession.objects.filter(pk=form["session_id"]).update(state="requisites_not_found")
    page = open_page(form["form_url"])
    failure = page.get_by_test_id("failure-screen")
    assert failure.get_attribute("data-reason") == "requisites_not_found"
    assert "способ" not in failure.inner_text()
    assert page.locator("[data-choose-again]").count() == 0
