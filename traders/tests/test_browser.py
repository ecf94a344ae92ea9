"""The cabinet in Chromium on a phone: sign in, orders that come and go by themselves,
confirm and decline behind a second tap (a double tap confirms once), the amount
received, requisites and statistics."""

import re

import pytest
from playwright.sync_api import expect

from finance.models import Transaction
from orders.models import Order
from orders.services import order_cancel
from orders.tests.factories import buy_order, sell_order

from .browser import browser_marks, card, shot, sign_in
from .cabinet import PASSWORD

pytestmark = browser_marks


def test_orders_appear_and_leave_without_a_reload(live_cab, page):
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    expect(page.get_by_test_id("no-orders")).to_be_visible()
    shot(page, "orders-empty")
    order = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="3100.00")
    item = card(page, order)
    expect(item).to_be_visible(timeout=5000)
    expect(page.get_by_test_id("no-orders")).to_be_hidden()
    assert item.get_by_test_id("order-amount").inner_text() == "3\u00a0100,00\u00a0₽"
    assert "+79990001122" in item.get_by_test_id("order-requisite").inner_text()
    timer = item.get_by_test_id("order-timer")
    first = timer.inner_text()
    assert re.fullmatch(r"\d\d:\d\d", first)
    expect(timer).not_to_have_text(first, timeout=3000)  # it ticks
    order_cancel(order_id=order.pk, actor="merchant:test")
    expect(item).to_have_count(0, timeout=5000)


def test_confirm_asks_once_more_and_a_double_tap_confirms_once(live_cab, page):
    order = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="1000.00")
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    card(page, order).get_by_test_id("order-confirm").click()
    ask = page.get_by_test_id("ask")
    expect(ask).to_be_visible()
    expect(ask).to_contain_text("1\u00a0000,00\u00a0₽")
    expect(page.get_by_test_id("paid-amount")).to_be_visible()
    shot(page, "orders-confirm-asked")
    assert Order.objects.get(pk=order.pk).status == "Pending"  # nothing before the second tap
    page.get_by_test_id("confirm-yes").dblclick()
    expect(page.get_by_test_id("messages")).to_contain_text("Заказ подтверждён")
    expect(card(page, order)).to_have_count(0)
    assert Order.objects.get(pk=order.pk).status == "Completed"
    assert (
        Transaction.objects.filter(
            reference=str(order.pk), balance__terminal=live_cab.terminal
        ).count()
        == 1
    )


def test_the_amount_received_is_checked_then_taken(live_cab, page):
    order = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="1000.00")
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    card(page, order).get_by_test_id("order-confirm").click()
    page.get_by_test_id("paid-amount").fill("2500")
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("messages")).to_contain_text("не больше двух сумм заказа")
    assert Order.objects.get(pk=order.pk).status == "Pending"
    card(page, order).get_by_test_id("order-confirm").click()
    page.get_by_test_id("paid-amount").fill("950,50")
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("messages")).to_contain_text("Заказ подтверждён")
    done = Order.objects.get(pk=order.pk)
    assert done.status == "Completed" and str(done.paid_amount) == "950.50"


def test_a_confirm_of_an_order_closed_meanwhile_says_so(live_cab, page):
    order = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="1000.00")
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    card(page, order).get_by_test_id("order-confirm").click()
    order_cancel(order_id=order.pk, actor="merchant:test")
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("messages")).to_contain_text("уже не ожидает")
    assert Order.objects.get(pk=order.pk).status == "Cancelled"


def test_decline_and_a_sells_payout_details(live_cab, page, browser):
    sell = sell_order(
        terminal=live_cab.terminal,
        method=live_cab.card,
        amount="1500.00",
        account="4111111111111111",
    )
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    item = card(page, sell)
    expect(item.get_by_test_id("customer-account")).to_have_text("4111111111111111")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    item.get_by_test_id("copy-customer-account").click()
    expect(item.get_by_test_id("copy-customer-account")).to_have_class(re.compile("done"))
    assert page.evaluate("navigator.clipboard.readText()") == "4111111111111111"
    shot(page, "orders-sell")
    item.get_by_test_id("order-decline").click()
    expect(page.get_by_test_id("confirm-yes")).to_have_text("Да, отклонить")
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("messages")).to_contain_text("Заказ отклонён")
    assert Order.objects.get(pk=sell.pk).status == "Cancelled"


def test_keyboard_reaches_confirm_and_escape_closes_the_question(live_cab, page):
    order = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="1000.00")
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    confirm = card(page, order).get_by_test_id("order-confirm")
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == "order-confirm":
            break
    else:
        pytest.fail("order-confirm is not reachable with Tab")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("ask")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("ask")).to_be_hidden()
    expect(confirm).to_be_focused()
    page.keyboard.press("Enter")
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == "confirm-yes":
            break
    else:
        pytest.fail("confirm-yes is not reachable with Tab")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("messages")).to_contain_text("Заказ подтверждён")


def test_requisites_switch_and_stats(live_cab, page):
    done = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="1000.00")
    Order.objects.filter(pk=done.pk).update(trader_reward="25.00")
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    page.get_by_test_id("nav-requisites").click()
    item = page.locator(f'[data-testid="requisite"][data-requisite-id="{live_cab.requisite.pk}"]')
    expect(item.get_by_test_id("requisite-pending")).to_have_text("1")
    item.get_by_test_id("requisite-toggle").click()
    expect(item.get_by_test_id("requisite-reason")).to_contain_text("Выключен вами")
    shot(page, "requisites")
    item.get_by_test_id("requisite-toggle").click()
    expect(item.get_by_test_id("requisite-state")).to_have_text("Включён")

    page.get_by_test_id("nav-stats").click()
    expect(page.get_by_test_id("trader-kpi-orders")).to_have_text("1")
    expect(page.get_by_test_id("trader-kpi-conversion")).to_have_text("0%")
    page.get_by_test_id("period-30d").click()
    expect(page).to_have_url(re.compile(r"period=30d"))
    expect(page.get_by_test_id("trader-kpi-turnover")).to_have_text("0.00\u00a0₽")
    shot(page, "stats")
