"""The payment form end to end in a real browser: Debian's Chromium driven by
Playwright, on a phone-sized screen, against a live server."""

import os
import shutil
from pathlib import Path

import pytest
from django.test import Client

from conftest import ApiClient, trader_for
from orders.models import Requisite

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
]
SHOTS = os.environ.get("FORM_SCREENSHOTS_DIR")


def shot(page, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def create_form(**extra):
    urls = {k: extra.pop(k) for k in ("redirect_url", "support_url", "return_url") if k in extra}
    order_data = {
        "client_order_id": "shop-order-77",
        "order_side": "Buy",
        "amount": "1500.00",
        **extra,
    }
    response = ApiClient("demo-shop-key").post(
        "/api/v1/form/create", {"order_data": order_data, **urls}
    )
    assert response.status_code == 201, response.content
    return response.json()["form_data"]


def test_payer_chooses_a_method_pays_and_is_redirected(live, page):
    demo, base = live
    redirect = f"{base}/healthz?paid=1"
    form = create_form(
        redirect_url=redirect,
        return_url=f"{base}/healthz?back=1",
        support_url=f"{base}/healthz?help=1",
    )
    page.goto(form["form_url"])
    assert page.locator('[data-testid="method-option"]').count() == 7  # not Ozon: no traders
    assert page.get_by_test_id("support-link").get_attribute("href") == f"{base}/healthz?help=1"
    shot(page, "1-method-choice")

    page.locator(
        f'[data-testid="method-option"][data-method-id="{demo.method_id("Sberbank SBP")}"]'
    ).click()
    account = page.get_by_test_id("requisite-account")
    account.wait_for()
    assert account.inner_text().startswith("+7999000")
    assert page.get_by_test_id("requisite-amount").inner_text() == "1\u00a0500,00\u00a0₽"
    assert page.get_by_test_id("return-link").get_attribute("href") == f"{base}/healthz?back=1"
    shot(page, "2-requisites")

    page.get_by_test_id("paid-button").click()
    page.wait_for_selector("text=Проверяем поступление платежа")
    assert page.get_by_test_id("return-link").is_visible()
    shot(page, "3-waiting-for-confirmation")

    order_id = (
        ApiClient("demo-shop-key")
        .get("/api/v1/form/search", {"session_id": form["session_id"]})
        .json()["items"][0]["order_id"]
    )
    assert (
        trader_for({"id": order_id}).post(f"/api/v1/trader/orders/{order_id}/confirm").status_code
        == 200
    )

    page.get_by_test_id("success-screen").wait_for()
    assert int(page.get_by_test_id("countdown").inner_text()) >= 4
    assert page.get_by_test_id("return-link").count() == 0
    shot(page, "4-success")
    page.wait_for_url(redirect, timeout=9000)


def test_preselected_button_skips_the_method_step_and_speaks_english(live, page):
    demo, base = live
    form = create_form(button_name="tpay")
    page.goto(form["form_url"] + "&lang=en")
    page.get_by_test_id("requisite-account").wait_for()
    assert page.locator('[data-testid="method-option"]').count() == 0
    assert page.get_by_test_id("paid-button").inner_text() == "I have paid"
    assert "T-Bank" in page.content()
    assert (
        page.get_by_test_id("return-link").count() == 0
        and page.get_by_test_id("support-link").count() == 0
    )


def test_no_requisites_ends_on_the_failure_screen_with_ways_on(live, page, settings):
    demo, base = live
    settings.FORM_SEARCH_WINDOW_SECONDS = 1
    settings.FORM_SEARCH_RETRY_SECONDS = 1
    form = create_form(return_url=f"{base}/healthz?back=1")
    page.goto(form["form_url"])
    # Every card requisite goes away while the payer looks at the list.
    Requisite.objects.filter(method__name="Bank card").update(is_active=False)
    page.locator(
        f'[data-testid="method-option"][data-method-id="{demo.method_id("Bank card")}"]'
    ).click()
    page.wait_for_selector("text=Подбираем реквизиты")
    shot(page, "5-searching")
    failure = page.get_by_test_id("failure-screen")
    failure.wait_for(timeout=15000)
    assert failure.get_attribute("data-reason") == "requisites_not_found"
    assert page.locator("[data-back-to-shop]").get_attribute("href") == f"{base}/healthz?back=1"
    shot(page, "6-requisites-not-found")
    page.get_by_role("button", name="Выбрать другой способ").click()
    page.locator('[data-testid="method-option"]').first.wait_for()
    assert (
        page.locator(
            f'[data-testid="method-option"][data-method-id="{demo.method_id("Bank card")}"]'
        ).count()
        == 0
    )


def test_order_expiry_ends_on_the_failure_screen(live, page, settings):
    settings.ORDER_TTL_BUY_SECONDS = 3
    form = create_form(button_name="SberPay")
    page.goto(form["form_url"])
    page.get_by_test_id("requisite-account").wait_for()
    page.get_by_test_id("failure-screen").wait_for(timeout=15000)
    assert page.get_by_test_id("failure-screen").get_attribute("data-reason") == "expired"
    shot(page, "7-expired")


def test_trader_cancel_ends_on_the_failure_screen(live, page):
    form = create_form(button_name="AlfaPay", return_url="https://shop.example/back")
    page.goto(form["form_url"])
    page.get_by_test_id("requisite-account").wait_for()
    order_id = (
        ApiClient("demo-shop-key")
        .get("/api/v1/form/search", {"session_id": form["session_id"]})
        .json()["items"][0]["order_id"]
    )
    trader_for({"id": order_id}).post(f"/api/v1/trader/orders/{order_id}/cancel")
    page.get_by_test_id("failure-screen").wait_for()
    assert page.get_by_test_id("failure-screen").get_attribute("data-reason") == "cancelled"
    assert page.get_by_test_id("return-link").count() == 0
    shot(page, "8-cancelled")


def test_success_without_redirect_url_counts_down_and_stays(live, page):
    form = create_form(button_name="SberPay")
    order_id = (
        ApiClient("demo-shop-key")
        .get("/api/v1/form/search", {"session_id": form["session_id"]})
        .json()["items"][0]["order_id"]
    )
    trader_for({"id": order_id}).post(f"/api/v1/trader/orders/{order_id}/confirm")
    page.goto(form["form_url"] + "&lang=en")
    page.get_by_test_id("success-screen").wait_for()
    assert int(page.get_by_test_id("countdown").inner_text()) >= 4
    page.wait_for_selector("text=You can close this page now.", timeout=9000)
    assert page.get_by_test_id("countdown").inner_text() == "0"
    assert page.url == form["form_url"] + "&lang=en"


def test_unknown_session_is_a_404_page(live, page):
    demo, base = live
    response = page.goto(f"{base}/form/?session_id=does-not-exist")
    assert response.status == 404
    assert page.get_by_test_id("failure-screen").count() == 0


def test_the_page_runs_under_its_csp_without_violations(live, page):
    form = create_form(button_name="SberPay")
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(form["form_url"])
    page.get_by_test_id("requisite-account").wait_for()
    page.wait_for_timeout(2000)  # a poll or two
    assert not [e for e in errors if "Content Security Policy" in e], errors
    assert (
        Client().get("/form/status", {"session_id": form["session_id"]}).json()["state"]
        == "requisites_found"
    )


def test_sandbox_page_shows_the_banner_and_its_button_completes_the_order(live, page):
    response = ApiClient("demo-sandbox-key").post(
        "/api/v1/form/create",
        {
            "order_data": {
                "client_order_id": "sandbox-77",
                "order_side": "Buy",
                "amount": "1500.00",
                "button_name": "SberPay",
            }
        },
    )
    assert response.status_code == 201, response.content
    form = response.json()["form_data"]
    page.goto(form["form_url"])
    page.get_by_test_id("requisite-account").wait_for()
    assert page.get_by_test_id("sandbox-banner").is_visible()
    assert page.get_by_test_id("sandbox-decline").is_visible()
    shot(page, "9-sandbox")

    page.get_by_test_id("sandbox-complete").click()
    page.get_by_test_id("success-screen").wait_for()
    order_id = (
        ApiClient("demo-sandbox-key")
        .get("/api/v1/form/search", {"session_id": form["session_id"]})
        .json()["items"][0]["order_id"]
    )
    order = ApiClient("demo-sandbox-key").get(f"/api/v1/order/{order_id}").json()["order"]
    assert order["status"] == "Completed" and order["livemode"] is False
    assert order["paid_amount"] == "1500.00"


def test_sandbox_decline_button_ends_on_the_failure_screen(live, page):
    response = ApiClient("demo-sandbox-key").post(
        "/api/v1/form/create",
        {"order_data": {"client_order_id": "sandbox-78", "order_side": "Buy", "amount": "1200"}},
    )
    form = response.json()["form_data"]
    page.goto(form["form_url"] + "&lang=en")
    assert page.get_by_test_id("sandbox-banner").is_visible()
    page.locator('[data-testid="method-option"]').first.click()
    page.get_by_test_id("paid-button").click()
    page.get_by_test_id("sandbox-decline").click()
    failure = page.get_by_test_id("failure-screen")
    failure.wait_for()
    assert failure.get_attribute("data-reason") == "cancelled"


def test_live_pages_have_no_sandbox_banner_or_buttons(live, page):
    form = create_form(button_name="SberPay")
    page.goto(form["form_url"])
    page.get_by_test_id("requisite-account").wait_for()
    assert page.get_by_test_id("sandbox-banner").count() == 0
    assert page.get_by_test_id("sandbox-complete").count() == 0
    assert page.get_by_test_id("sandbox-decline").count() == 0
