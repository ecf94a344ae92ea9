"""The operators' dashboard: live figures that agree with the API, in constant statements."""

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.testing import ApiClient
from demo.testing import buy_body, sell_body
from orders.models import Order
from orders.tests.world import trader_for

from .conftest import operators_world


def figure(html: str, testid: str) -> str:
    match = re.search(rf'data-testid="{testid}"[^>]*>([^<]*)<', html)
    assert match, testid
    return match.group(1).strip()


def test_anonymous_is_sent_to_sign_in(client, db):
    response = client.get("/admin/dashboard/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_the_admin_index_links_the_dashboard(operator):
    assert 'href="/admin/dashboard/"' in operator.get("/admin/").content.decode()


def test_figures_agree_with_the_orders_the_api_lists(operator, world, shop):
    empty = operator.get("/admin/dashboard/?period=24h").content.decode()
    assert figure(empty, "kpi-orders") == "0"
    assert figure(empty, "kpi-conversion") == "0,0"
    assert figure(empty, "kpi-median-confirm-seconds") == "0"

    completed = shop.post("/api/v1/order/", buy_body(world, amount="1000.00")).json()
    trader_for(completed).post(f"/api/v1/trader/orders/{completed['id']}/confirm")
    cancelled = shop.post("/api/v1/order/", buy_body(world, amount="1200.00")).json()
    shop.post(f"/api/v1/order/{cancelled['id']}/cancel")
    shop.post("/api/v1/order/", buy_body(world, amount="1300.00"))
    sold = shop.post("/api/v1/order/", sell_body(world, amount="2000.00")).json()
    trader_for(sold).post(f"/api/v1/trader/orders/{sold['id']}/confirm")

    html = operator.get("/admin/dashboard/?period=24h").content.decode()
    listed = shop.get("/api/v1/order/", {"size": 100}).json()
    assert figure(html, "kpi-orders") == str(listed["orders"]["total"]) == "4"
    assert figure(html, "kpi-completed") == "2"
    assert figure(html, "kpi-pending") == "1"
    assert figure(html, "kpi-conversion") == "66,7"
    assert figure(html, "kpi-volume-buy") == "1\xa0000,00"
    assert figure(html, "kpi-volume-sell") == "2\xa0000,00"
    assert figure(html, "kpi-median-confirm-seconds").isdigit()
    assert figure(html, "kpi-disputes-open") == "0"
    assert figure(html, "kpi-webhooks-failed") == "0"
    for chart in ["chart-orders-per-hour", "chart-conversion-per-method", "chart-trader-load"]:
        assert f'<svg data-testid="{chart}"' in html

    another_shop = world.other_terminal().terminal
    other = operator.get(f"/admin/dashboard/?period=7d&terminal={another_shop.pk}")
    assert figure(other.content.decode(), "kpi-orders") == "0"


def test_sandbox_orders_count_only_when_their_terminal_is_chosen(operator):
    # A live shop and a sandbox one on Sberbank SBP; the sandbox trader holds two
    # requisites on it, so both sandbox Buys are placed.
    world = operators_world(sandbox_holders={"Sberbank SBP": 2})
    sandbox_shop = world.terminal(sandbox=True)
    sandbox = ApiClient(sandbox_shop.raw_key)
    world.api.post("/api/v1/order/", buy_body(world, amount="1000.00"))
    for amount in ["1000.00", "1100.00"]:
        response = sandbox.post("/api/v1/order/", buy_body(world, amount=amount))
        assert response.status_code == 201, response.content
    everyone = operator.get("/admin/dashboard/?period=24h").content.decode()
    assert figure(everyone, "kpi-orders") == figure(everyone, "kpi-pending") == "1"
    chosen = operator.get(f"/admin/dashboard/?period=24h&terminal={sandbox_shop.pk}")
    assert figure(chosen.content.decode(), "kpi-orders") == "2"
    # An order keeps the mode it was created in: turning the terminal live later does not
    # bring its sandbox orders into the live figures.
    sandbox_shop.sandbox = False
    sandbox_shop.save(update_fields=["sandbox"])
    later = operator.get("/admin/dashboard/?period=24h").content.decode()
    assert figure(later, "kpi-orders") == "1"


def test_bad_period_or_terminal_is_said_not_guessed(operator):
    response = operator.get("/admin/dashboard/?period=1y&terminal=nope")
    assert response.status_code == 400
    html = response.content.decode()
    assert "выберите 24h, 7d или 30d" in html
    assert figure(html, "kpi-orders") == "0"


def test_statement_count_does_not_grow_with_orders(operator, world, shop):
    def statements() -> int:
        """The page's statements, but the operator's permissions (read once, then kept
        per process until anything moves the configuration generation)."""
        with CaptureQueriesContext(connection) as queries:
            assert operator.get("/admin/dashboard/?period=30d").status_code == 200
        return sum("auth_permission" not in q["sql"] for q in queries.captured_queries)

    first = shop.post("/api/v1/order/", buy_body(world, amount="1000.00")).json()
    trader_for(first).post(f"/api/v1/trader/orders/{first['id']}/confirm")
    few = statements()
    for amount in range(1001, 1031):
        body = buy_body(world, amount=f"{amount}.00", user_id=f"u{amount}")
        order = shop.post("/api/v1/order/", body).json()
        if amount % 3 == 0:
            trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    assert statements() == few


def test_the_dashboard_is_russian_whatever_the_browser_and_english_by_choice(operator):
    response = operator.get("/admin/dashboard/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    html = response.content.decode()
    assert response["Content-Language"] == "ru"
    assert "Создано ордеров" in html and "Главная" in html  # the dashboard's and the breadcrumbs'
    assert figure(html, "kpi-orders") == "0"
    operator.post("/admin/i18n/setlang/", {"language": "en", "next": "/admin/dashboard/"})
    english = operator.get("/admin/dashboard/").content.decode()
    assert "Orders created" in english
    assert figure(english, "kpi-conversion") == "0.0"


def test_the_api_keeps_speaking_english_to_russian_browsers(merchant):
    response = merchant.get("/api/v1/order/nothing-here", headers={"Accept-Language": "ru"})
    assert response.json()["message"] == "Order not found"


def test_trader_load_draws_pending_now_and_every_figure_is_russian(operator, world, shop):
    first = shop.post("/api/v1/order/", buy_body(world, amount="7350.00")).json()
    trader_for(first).post(f"/api/v1/trader/orders/{first['id']}/confirm")
    for amount in ["1100.00", "1200.00", "1300.00"]:
        shop.post("/api/v1/order/", buy_body(world, amount=amount))
    html = operator.get("/admin/dashboard/?period=24h").content.decode()
    chart = re.search(r'<svg data-testid="chart-trader-load".*?</svg>', html, re.S).group(0)
    bars = [
        (name, float(width))
        for name, width in re.findall(
            r'<text x="0" y="\d+">([^<]+)</text>.*?fill="#eee"/><rect x="\d+" y="\d+" '
            r'width="([\d.]+)"',
            chart,
            re.S,
        )
    ]
    pending = {}
    for order in Order.objects.filter(status="Pending").select_related("trader"):
        pending[order.trader.name] = pending.get(order.trader.name, 0) + 1
    busiest = max(pending.values())
    for name, width in bars:  # the bar is Pending now, scaled to the busiest trader
        assert round(width / 440 * busiest, 3) == pending.get(name, 0), (name, width)
    assert "в ожидании" in chart and "конверсия" in chart
    assert figure(html, "kpi-volume-buy") == "7\xa0350,00"
    assert '<span class="unit">₽</span>' in html and '<span class="unit">%' in html
    legend = re.search(r'<svg data-testid="chart-orders-per-hour".*?</svg>', html, re.S).group(0)
    assert "Завершён" in legend and "В ожидании" in legend and "MSK" in legend
