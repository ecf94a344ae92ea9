"""The audit log in a real browser, in Russian: an operator finds a trader's confirm
and filters the log down to it. With AUDIT_SCREENSHOTS_DIR set, the page is saved."""

import os
from pathlib import Path

import pytest

from conftest import ApiClient, buy_body, trader_for

# The form's browser marks, shared: browser, live database, skipped without Chromium.
from forms_ui.tests.test_browser import pytestmark  # noqa: F401

SHOTS = os.environ.get("AUDIT_SCREENSHOTS_DIR")


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="ru-RU")
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


def test_an_operator_filters_the_log_to_a_traders_confirm(page, live):
    demo, url = live
    order = ApiClient("demo-shop-key").post("/api/v1/order/", buy_body(demo)).json()
    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    page.goto(f"{url}/admin/login/?next=/admin/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", "operator-demo-password")
    page.click("input[type=submit]")
    page.click("[data-testid=audit-link] a")
    page.wait_for_url(f"{url}/admin/audit/")
    rows = page.locator("[data-testid=audit-entry]")
    assert rows.count() == 2  # the operator's sign-in and the trader's confirm
    kinds = page.locator("[data-testid=audit-actor-kind]").all_inner_texts()
    assert sorted(kinds) == ["оператор", "трейдер"]
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / "audit-log.png"), full_page=True)

    page.select_option("select[name=actor_kind]", "trader")
    page.fill("input[name=object_id]", order["id"][:8])
    page.click("[data-testid=audit-filters] input[type=submit]")
    page.wait_for_url(lambda u: "actor_kind=trader" in u)
    assert rows.count() == 1
    action = page.locator("[data-testid=audit-action]")
    assert action.inner_text() == "заказ подтверждён"
    assert action.get_attribute("title") == "order.confirm"
    assert order["id"][:8] in page.inner_text("[data-testid=audit-object-id]")
