"""The matcher's per-requisite limits, through the order API: the Pending cap, the daily
turnover limit, and which orders count toward each."""

from datetime import timedelta
from decimal import Decimal

import pytest

from conftest import buy_body, sell_body
from core.db import db_now
from finance.models import PaymentMethod
from orders.models import Requisite, RequisiteLoad
from orders.services import matching, walk
from orders.services.load import utc_day
from orders.tests.clock import orders_age
from orders.tests.factories import TraderFactory
from orders.tests.world import trader_for

URL = "/api/v1/order/"


@pytest.fixture
def shop(world):
    return world.api


def sberbank_requisites(**fields):
    method = PaymentMethod.objects.get(name="Sberbank SBP")
    requisites = Requisite.objects.filter(method=method, trader__sandbox=False)
    assert requisites.count() == 2
    requisites.update(**fields)
    return requisites


def confirm(order: dict) -> None:
    response = trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    assert response.status_code == 200, response.content


def test_requisite_at_its_pending_cap_is_skipped_until_none_is_left(shop, world):
    sberbank_requisites(max_pending=1)
    first = shop.post(URL, buy_body(world, amount=1000))
    second = shop.post(URL, buy_body(world, amount=1001))
    assert first.status_code == second.status_code == 201
    assert first.json()["holder_account"] != second.json()["holder_account"]
    assert shop.post(URL, buy_body(world, amount=1002)).status_code == 500


def test_pending_cap_counts_sell_orders_too(shop, world):
    sberbank_requisites(max_pending=1)
    assert shop.post(URL, sell_body(world, amount=1000)).status_code == 201
    assert shop.post(URL, sell_body(world, amount=1000, client_order_id="s2")).status_code == 201
    assert shop.post(URL, buy_body(world, amount=1000)).status_code == 500


def test_order_pending_past_its_expiry_no_longer_counts_toward_the_cap(shop, world):
    sberbank_requisites(max_pending=1)
    shop.post(URL, buy_body(world, amount=1000))
    shop.post(URL, buy_body(world, amount=1001))
    orders_age(timedelta(minutes=16))
    response = shop.post(URL, buy_body(world, amount=1002))
    assert response.status_code == 201


def test_cancelled_order_frees_its_place_under_the_cap(shop, world):
    sberbank_requisites(max_pending=1)
    order = shop.post(URL, buy_body(world, amount=1000)).json()
    shop.post(URL, buy_body(world, amount=1001))
    shop.post(f"{URL}{order['id']}/cancel")
    assert shop.post(URL, buy_body(world, amount=1002)).status_code == 201


def test_requisite_over_its_daily_turnover_is_skipped(shop, world):
    sberbank_requisites(daily_limit=Decimal("1500"))
    first = shop.post(URL, buy_body(world, amount=1000)).json()
    second = shop.post(URL, buy_body(world, amount="1000.50")).json()
    assert first["holder_account"] != second["holder_account"]
    assert shop.post(URL, buy_body(world, amount="500.01")).status_code == 500
    assert shop.post(URL, buy_body(world, amount="499.50")).status_code == 201


def test_turnover_counts_completed_orders_of_the_day_and_not_cancelled_ones(shop, world):
    sberbank_requisites(daily_limit=Decimal("1500"))
    completed = shop.post(URL, buy_body(world, amount=1000)).json()
    confirm(completed)
    cancelled = shop.post(URL, buy_body(world, amount=1001)).json()
    assert shop.post(f"{URL}{cancelled['id']}/cancel").status_code == 200
    response = shop.post(URL, buy_body(world, amount=1000))
    assert response.status_code == 201
    assert response.json()["holder_account"] != completed["holder_account"]


def test_turnover_starts_again_at_the_utc_day(shop, world):
    sberbank_requisites(daily_limit=Decimal("1500"))
    for amount in (1000, 1001):
        order = shop.post(URL, buy_body(world, amount=amount)).json()
        confirm(order)
    assert shop.post(URL, buy_body(world, amount=1002)).status_code == 500
    # A day later by the database's clock: that turnover was yesterday's.
    orders_age(timedelta(days=1))
    RequisiteLoad.objects.update(day=utc_day(db_now()) - timedelta(days=1))
    assert shop.post(URL, buy_body(world, amount=1002)).status_code == 201


def many_requisites(count: int) -> PaymentMethod:
    """A bank method with `count` requisites of one trader (Ozon Bank SBP has none)."""
    method = PaymentMethod.objects.get(name="Ozon Bank SBP")
    trader = Requisite.objects.filter(trader__sandbox=False).first().trader
    Requisite.objects.bulk_create(
        Requisite(trader=trader, method=method, holder_name="H", account=f"+7990{i:07d}")
        for i in range(count)
    )
    return method


def test_matcher_visits_every_requisite_once_over_several_chunks(world):
    method = many_requisites(walk.CHUNK * 2 + 6)
    for _ in range(20):  # each search starts from a random point of the ring
        seen = [
            requisite.pk
            for requisite, _ in matching.candidates(
                methods=[method], side="Sell", amounts=[Decimal("1000")]
            )
        ]
        assert len(seen) == len(set(seen)) == walk.CHUNK * 2 + 6


def test_the_walk_passes_over_requisites_that_cannot_serve_the_order(world):
    """A live Buy on a ring of 150 sandbox requisites, 40 of a live trader without the
    deposit, and 3 that can serve: each search finds exactly the 3, once each, in a few
    statements (the walk grows after slices that keep little of what they read)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    method = PaymentMethod.objects.get(name="Ozon Bank SBP")
    live = Requisite.objects.filter(trader__sandbox=False).first().trader
    sandbox = TraderFactory(sandbox=True)
    broke = TraderFactory(deposit="10.00")
    rows = [(sandbox, 150), (broke, 40), (live, 3)]
    Requisite.objects.bulk_create(
        Requisite(trader=trader, method=method, holder_name="H", account=f"+79{n}{i:07d}")
        for n, (trader, count) in enumerate(rows)
        for i in range(count)
    )
    serving = set(Requisite.objects.filter(method=method, trader=live).values_list("pk", flat=True))
    for _ in range(20):  # each search starts from a random point of the ring
        with CaptureQueriesContext(connection) as queries:
            seen = [
                requisite.pk
                for requisite, _ in matching.candidates(
                    methods=[method], side="Buy", amounts=[Decimal("1000")]
                )
            ]
        assert sorted(seen) == sorted(serving)
        slices = [q for q in queries.captured_queries if "row_number()" in q["sql"]]
        assert 1 <= len(slices) <= 5, len(slices)


def test_the_last_free_requisite_among_many_is_found(shop, world):
    count = walk.CHUNK + 5
    many_requisites(count)
    accounts = set()
    for _ in range(count):
        response = shop.post(URL, buy_body(world, method="Ozon Bank SBP", amount=1000))
        assert response.status_code == 201, response.content
        accounts.add(response.json()["holder_account"])
    assert len(accounts) == count
    assert shop.post(URL, buy_body(world, method="Ozon Bank SBP", amount=1000)).status_code == 500


def test_aggregate_sbp_expands_only_to_bank_methods_enabled_on_the_terminal(shop, world):
    from finance.models import TerminalMethod

    aggregate = world.methods["SBP"]
    everything = matching.concrete_methods(aggregate, terminal=world.shop)
    assert world.methods["Sberbank SBP"] in everything
    TerminalMethod.objects.filter(terminal=world.shop).exclude(
        method__name__in=["SBP", "Sberbank SBP"]
    ).update(enabled=False)
    assert matching.concrete_methods(aggregate, terminal=world.shop) == [
        world.methods["Sberbank SBP"]
    ]
    # Through the API: every order on the aggregate lands on a Sberbank requisite.
    for i in range(3):
        response = shop.post(
            "/api/v1/order/",
            buy_body(world, method="SBP", client_order_id=f"agg-{i}", amount=f"{1000 + i}.00"),
        )
        assert response.status_code in (201, 500), response.content
        if response.status_code == 201:
            assert response.json()["method_name"] == "Sberbank SBP"


def test_an_aggregates_bank_methods_are_kept_and_a_changed_link_is_seen_at_once(shop, world):
    """The bank methods the aggregate SBP stands for on a terminal are read once per
    process (core.memo), not on every order; an operator's change to the terminal's
    links is seen by the very next order."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from finance.models import TerminalMethod

    def order(i):
        body = buy_body(world, method="SBP", client_order_id=f"kept-{i}", amount=f"{2000 + i}.00")
        with CaptureQueriesContext(connection) as seen:
            response = shop.post(URL, body)
        assert response.status_code == 201, response.content
        expansions = [
            q
            for q in seen.captured_queries
            if 'NOT "finance_paymentmethod"."is_aggregate"' in q["sql"]
        ]
        return response.json()["method_name"], len(expansions)

    assert order(0)[1] == 1
    assert order(1)[1] == 0
    TerminalMethod.objects.filter(terminal=world.shop).exclude(
        method__name__in=["SBP", "Sberbank SBP"]
    ).update(enabled=False)
    assert [order(i) for i in range(2, 5)] == [
        ("Sberbank SBP", 1),
        ("Sberbank SBP", 0),
        ("Sberbank SBP", 0),
    ]
