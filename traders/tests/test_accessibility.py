"""Every page of the cabinet in Chromium at a phone's and a desktop's width: axe-core
finds no serious or critical violation. With TRADER_SCREENSHOTS_DIR set, each state
is also photographed for docs/traders.md (`make trader-screenshots`)."""

from django.contrib.auth import get_user_model

from forms_ui.tests.test_accessibility import axe_problems
from orders.services.requisite_state import requisite_switch
from orders.tests.factories import buy_order, sell_order

from .browser import browser_marks, shot, sign_in
from .cabinet import PASSWORD, make_cabinet

pytestmark = browser_marks


def check(page, name):
    problems = axe_problems(page)
    shot(page, f"{name}-{page.width_name}")
    assert not problems, f"{name} at {page.width_name}: {problems}"


def test_every_page_has_no_serious_violation(live_server, wide_page, settings):
    page, base = wide_page, live_server.url
    cab = make_cabinet()
    page.goto(f"{base}/trader/login/?lang=en")
    check(page, "login-en")
    page.goto(f"{base}/trader/login/?lang=ru")
    check(page, "login")
    page.fill("#id_username", cab.user.username)
    page.fill("#id_password", "wrong-password")
    page.get_by_test_id("sign-in").click()
    page.get_by_test_id("sign-in-error").wait_for()
    check(page, "login-error")

    sign_in(page, base, cab.user.username, PASSWORD)
    check(page, "orders-empty")
    buy = buy_order(terminal=cab.terminal, method=cab.method, amount="3100.00")
    sell_order(terminal=cab.terminal, method=cab.card, amount="1500.00", account="4111111111111111")
    page.reload()
    page.get_by_test_id("trader-order").first.wait_for()
    check(page, "orders")
    page.locator(f'[data-order-id="{buy.pk}"] [data-testid="order-confirm"]').click()
    page.get_by_test_id("ask").wait_for()
    check(page, "orders-confirm")
    page.goto(f"{base}/trader/?lang=en")
    page.get_by_test_id("trader-order").first.wait_for()
    check(page, "orders-en")

    requisite_switch(requisite_id=cab.card_requisite.pk, on=False, by_operator=True)
    page.goto(f"{base}/trader/requisites/?lang=ru")
    check(page, "requisites")
    page.goto(f"{base}/trader/stats/?period=7d")
    check(page, "stats")
    page.goto(f"{base}/trader/balance/")
    page.get_by_test_id("ledger-entry").first.wait_for()
    check(page, "balance")

    settings.TRADER_2FA = True
    page.goto(f"{base}/trader/")
    page.get_by_test_id("totp-qr").wait_for()
    check(page, "two-factor")
    settings.TRADER_2FA = False

    get_user_model().objects.create_user("staff-op", password=PASSWORD, is_staff=True)
    page.context.clear_cookies()
    page.goto(f"{base}/trader/login/")
    page.fill("#id_username", "staff-op")
    page.fill("#id_password", PASSWORD)
    page.get_by_test_id("sign-in").click()
    page.get_by_test_id("forbidden").wait_for()
    check(page, "forbidden")
