"""The operators' admin in a real browser at 1280x800: the dashboard, the CSV export
and the two-factor sign-in. With OPERATOR_SCREENSHOTS_DIR set, the pages are saved
as the screenshots in docs/operators.md."""

import base64
import csv
import io
import os
import re
from pathlib import Path

import pytest
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import expect

from conftest import ApiClient, buy_body, sell_body, trader_for

# The form's browser marks, shared: browser, live database, skipped without Chromium
# (its fixtures come through conftest.py).
from forms_ui.tests.test_browser import pytestmark  # noqa: F401

SHOTS = os.environ.get("OPERATOR_SCREENSHOTS_DIR")
SCREEN = {"width": 1280, "height": 800}
PASSWORD = "operator-demo-password"


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=SCREEN, locale="en-GB", accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


def shot(page, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"operators-{name}.png"))


def sign_in(page, url, code: str | None = None):
    page.goto(f"{url}/admin/login/?next=/admin/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", PASSWORD)
    if code is not None:
        page.fill("#id_otp_token", code)
    page.click("input[type=submit]")


def some_orders(demo):
    shop = ApiClient("demo-shop-key")
    for n, amount in enumerate(["1000.00", "1500.00", "2500.00"]):
        order = shop.post("/api/v1/order/", buy_body(demo, amount=amount, user_id=f"u{n}")).json()
        if n != 1:
            trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    cancelled = shop.post("/api/v1/order/", buy_body(demo, amount="1700.00")).json()
    shop.post(f"/api/v1/order/{cancelled['id']}/cancel")
    sold = shop.post("/api/v1/order/", sell_body(demo, amount="3000.00")).json()
    trader_for(sold).post(f"/api/v1/trader/orders/{sold['id']}/confirm")


def test_the_dashboard_shows_live_figures_and_charts(page, live):
    demo, url = live
    some_orders(demo)
    sign_in(page, url)
    page.click("[data-testid=dashboard-link] a")
    page.wait_for_url(f"{url}/admin/dashboard/")
    figures = {
        testid: page.inner_text(f"[data-testid={testid}]").strip()
        for testid in ["kpi-orders", "kpi-completed", "kpi-pending", "kpi-conversion"]
    }
    assert figures == {
        "kpi-orders": "5",
        "kpi-completed": "3",
        "kpi-pending": "1",
        "kpi-conversion": "75,0",
    }
    assert page.inner_text("[data-testid=kpi-volume-sell]") == "3\xa0000,00"
    for chart in ["chart-orders-per-hour", "chart-conversion-per-method", "chart-trader-load"]:
        box = page.locator(f"svg[data-testid={chart}]").bounding_box()
        assert box and box["width"] > 300 and box["height"] > 20
    assert page.locator("svg[data-testid=chart-orders-per-hour] rect[fill='#2e7d32']").count()
    shot(page, "1-dashboard")

    # Figures are live: an order created a moment ago is counted.
    ApiClient("demo-shop-key").post("/api/v1/order/", buy_body(demo, amount="4000.00"))
    page.select_option("[data-testid=terminal-filter]", label="Demo Shop")
    page.wait_for_url(re.compile(r".*terminal=.*"))
    assert page.inner_text("[data-testid=kpi-orders]") == "6"
    assert page.inner_text("[data-testid=kpi-pending]") == "2"


def test_the_export_holds_the_rows_the_filtered_list_shows(page, live):
    demo, url = live
    some_orders(demo)
    sign_in(page, url)
    page.goto(f"{url}/admin/orders/order/")
    page.click("#changelist-filter a:text-is('Buy')")
    page.wait_for_url(re.compile(r".*side__exact=Buy.*"))
    listed = page.locator("#result_list tbody tr").count()
    with page.expect_download() as download:
        page.click("[data-testid=export-csv]")
    text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    assert listed == len(rows) == 4
    assert {r["side"] for r in rows} == {"Buy"}


def test_staff_sign_in_needs_a_valid_totp_code(page, live, settings):
    settings.ADMIN_2FA = True
    _, url = live
    sign_in(page, url)
    page.wait_for_url(re.compile(r".*/admin/2fa/.*"))
    assert page.locator("[data-testid=totp-qr] svg").is_visible()
    shot(page, "3-two-factor-enrolment")
    secret = page.inner_text("[data-testid=totp-secret]")
    key = base64.b32decode(secret)
    page.fill("#id_otp_token", "000000")
    page.click("input[type=submit]")
    expect(page.locator("body")).to_contain_text("Код неверен")
    # django-otp makes the next try wait a second after a wrong code; no waiting here.
    TOTPDevice.objects.update(throttling_failure_count=0, throttling_failure_timestamp=None)
    page.fill("#id_otp_token", f"{totp(key):06d}")
    page.click("input[type=submit]")
    page.wait_for_url(f"{url}/admin/")

    page.context.clear_cookies()
    TOTPDevice.objects.filter(confirmed=True).update(last_t=-1, throttling_failure_count=0)
    sign_in(page, url)
    expect(page.locator(".errornote")).to_be_visible()  # refused without the code
    expect(page.locator("#id_otp_token")).to_be_attached()
    assert page.url.startswith(f"{url}/admin/login/")
    shot(page, "4-sign-in-with-code")
    sign_in(page, url, code=f"{totp(key):06d}")
    page.wait_for_url(f"{url}/admin/")
    page.goto(f"{url}/admin/dashboard/")
    assert page.locator("[data-testid=kpi-orders]").is_visible()
