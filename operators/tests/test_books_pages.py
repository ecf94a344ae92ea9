"""What operators see of the books: the dashboard's revenue and rewards, the revenue
report by day and method with its CSV, and the trader's balance and ledger."""

from decimal import Decimal

from django.test import Client

from demo.testing import buy_body, sell_body
from orders.tests.world import trader_for


def _completed(world):
    """A Buy of 530.00 and a Sell of 1000.00 on Sberbank SBP, both confirmed by their
    traders (operators_world: each trader starts with 100000000.00 deposited)."""
    shop = world.api
    buy = shop.post("/api/v1/order/", buy_body(world, amount="530.00")).json()
    assert trader_for(buy).post(f"/api/v1/trader/orders/{buy['id']}/confirm").status_code == 200
    sell = shop.post("/api/v1/order/", sell_body(world, amount="1000.00")).json()
    assert trader_for(sell).post(f"/api/v1/trader/orders/{sell['id']}/confirm").status_code == 200
    return buy, sell


def _testid(html: str, testid: str) -> str:
    start = html.index(f'data-testid="{testid}"')
    return html[html.index(">", start) + 1 : html.index("<", start)]


def test_the_dashboard_shows_revenue_and_rewards(world, operator):
    _completed(world)
    html = operator.get("/admin/dashboard/").content.decode()
    # Buy 530.00: fee 26.50, reward 13.25. Sell 1000.00: fee 3 % + 50 = 80.00,
    # reward 1.5 % = 15.00. Rewards 28.25; revenue 106.50 - 28.25 = 78.25.
    assert _testid(html, "kpi-rewards") == "28,25"  # the Russian number format
    assert _testid(html, "kpi-revenue") == "78,25"


def test_the_revenue_report_by_day_and_method_with_csv(world, operator):
    _completed(world)
    html = operator.get("/admin/dashboard/revenue/").content.decode()
    assert html.count('data-testid="revenue-row"') == 1  # one day, one method
    assert "Sberbank SBP" in html
    total = html[html.index('data-testid="revenue-total"') :]
    assert "106,50" in total and "28,25" in total and "78,25" in total
    csv = operator.get("/admin/dashboard/revenue/", {"format": "csv", "period": "7d"})
    assert csv["Content-Type"].startswith("text/csv")
    text = csv.content.decode("utf-8")
    assert text.startswith("\ufeff")
    header, row = text.lstrip("\ufeff").strip().split("\r\n")
    assert header.count(";") == 5
    assert row.split(";")[1:] == ["Sberbank SBP", "2", "106,50", "28,25", "78,25"]
    assert Client().get("/admin/dashboard/revenue/").status_code == 302


def test_the_traders_admin_page_shows_its_balance_and_ledger(world, operator):
    buy, _ = _completed(world)
    from orders.models import Order

    trader = Order.objects.get(pk=buy["id"]).trader
    html = operator.get(f"/admin/orders/trader/{trader.pk}/change/").content.decode()
    assert 'data-testid="trader-balance"' in html
    assert html.count('data-testid="trader-ledger-row"') >= 3  # deposit, order_buy, reward
    assert "получен платёж (списание)" in html and "вознаграждение" in html
    # The rows' own descriptions in the page's language, as on the ledger's list
    short = buy["id"][:8]
    assert f"Платёж по заказу {short}" in html and f"Вознаграждение за заказ {short}" in html
    assert f"Buy {short}" not in html and f"Reward {short}" not in html
    assert str(Decimal("100000000.00")) in html
