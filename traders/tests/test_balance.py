"""The cabinet's balance page: available, frozen and total exactly as the trader API
gives them, then the ledger in Russian; in Chromium at a phone's width."""

import re

from playwright.sync_api import expect

from conftest import ApiClient
from orders.models import Order
from orders.tests.factories import buy_order

from .browser import browser_marks, shot, sign_in
from .cabinet import PASSWORD

pytestmark = browser_marks


def test_balance_and_ledger_as_the_api_gives_them(live_cab, page):
    done = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="1000.00")
    ApiClient(live_cab.trader.raw_key).post(f"/api/v1/trader/orders/{done.pk}/confirm")
    buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="2000.00")  # frozen
    api = ApiClient(live_cab.trader.raw_key).get("/api/v1/trader/balance").json()["balance"]
    assert api["frozen"] == "2000.00"

    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    page.get_by_test_id("nav-balance").click()
    for name in ("available", "frozen", "total"):
        text = page.get_by_test_id(f"balance-{name}").inner_text()
        assert text.removesuffix("₽").strip() == api[name], (name, text)
    entries = page.get_by_test_id("ledger-entry")
    expect(entries.first).to_be_visible()
    ledger = ApiClient(live_cab.trader.raw_key).get("/api/v1/trader/transactions").json()
    assert entries.count() == ledger["transactions"]["total"]
    texts = " ".join(entries.all_inner_texts())
    assert "Начальный депозит" in texts and "Initial deposit" not in texts
    assert "Платёж по заказу" in texts
    assert re.search(r"Приём платежа|Вознаграждение", texts)
    assert Order.objects.filter(status="Completed").count() == 1
    shot(page, "balance")
