"""Working deposits under parallel load, and the matcher's "amount already held"
probe read off PostgreSQL's plan."""

import json
import uuid
from decimal import Decimal

import pytest
from django.conf import settings
from django.db import connection

from finance.models import Balance
from finance.services import ledger_check
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import Order, RequisiteLoad
from orders.services import matching, walk
from orders.tests.factories import RequisiteFactory, TraderFactory, buy_order
from orders.tests.test_concurrency import in_parallel
from webhooks.models import WebhookEvent

POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


@pytest.mark.django_db(transaction=True)
def test_parallel_buys_never_freeze_more_than_a_trader_holds():
    method = PaymentMethodFactory()
    shop = TerminalFactory(methods=[method])
    trader = TraderFactory(deposit="1000.00")
    for _ in range(6):
        RequisiteFactory(trader=trader, method=method)

    def create(i):
        def call():
            try:
                return buy_order(terminal=shop, method=method, amount="300.00").pk
            except Exception as exc:  # noqa: BLE001 - counted below
                return type(exc).__name__

        return call

    results = in_parallel([create(i) for i in range(12)])
    created = [r for r in results if not isinstance(r, str)]
    # 1000.00 covers three Buys of 300.00, whichever requests win the rows
    assert len(created) == 3
    assert {r for r in results if isinstance(r, str)} == {"NoAvailableTraders"}
    balance = Balance.objects.get(trader_id=trader.pk)
    assert (balance.available, balance.frozen) == (Decimal("100.00"), Decimal("900.00"))
    assert ledger_check() == []
    # The requests refused for the deposit had taken a requisite's slot first: each was
    # given back, and no order row of theirs is left.
    assert Order.objects.count() == 3
    # and no event of theirs: order.created is written before the caps' UPDATE and
    # taken back with the order
    assert sorted(WebhookEvent.objects.values_list("order_id", flat=True)) == sorted(created)
    loads = RequisiteLoad.objects.filter(requisite__trader=trader)
    assert (
        sorted((load.pending, load.turnover) for load in loads if load.pending)
        == [(1, Decimal("300.00"))] * 3
    )
    assert sum(load.turnover for load in loads) == Decimal("900.00")


def _plan_nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", ()):
        yield from _plan_nodes(child)


def _probes_of_the_slice(
    pending: int, *settings: str, stale: bool = False, generic: bool = False
) -> tuple[list[dict], int]:
    """40 requisites of one method holding `pending` Pending Buys (amounts 1000, 1001,
    ... one per requisite in turn), analyzed (with `stale`: vacuumed and analyzed before
    they came, and without a user id, as statistics lag on a live system); the slice's
    plan for ten candidate amounts (with `generic`: the plan a prepared slice keeps,
    made without its values, as core.prepared's statements run after their first few):
    the nodes that read the orders table, and the rows the slice returned."""
    method = PaymentMethodFactory()
    shop = TerminalFactory(methods=[method])
    trader = TraderFactory()
    requisites = [RequisiteFactory(method=method, trader=trader) for _ in range(40)]
    common = dict(
        terminal=shop,
        side="Buy",
        method=method,
        initial_method=method,
        trader=trader,
        fee=Decimal(5),
        fee_amount=Decimal(0),
        status="Pending",
    )
    if stale:
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM ANALYZE {Order._meta.db_table}")
    Order.objects.bulk_create(
        [
            Order(
                id=uuid.uuid4(),
                client_order_id=f"held-{i}",
                requisite=requisites[i % 40],
                requested_amount=Decimal(1000 + i // 40),
                amount=Decimal(1000 + i // 40),
                user_id=None if stale else f"user-{i % 7}",
                **common,
            )
            for i in range(pending)
        ]
    )
    if not stale:
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Order._meta.db_table}")
    amounts = [Decimal(1000 + k) for k in range(10)]
    plan = _explain(*_first_slice(method, amounts, uuid.UUID(int=0)), *settings, generic=generic)
    probes = [
        node
        for node in _plan_nodes(plan[0]["Plan"])
        if node.get("Relation Name") == Order._meta.db_table
    ]
    assert len(probes) == len(amounts), json.dumps(plan, indent=1)
    return probes, plan[0]["Plan"]["Actual Rows"]


def _first_slice(method, amounts: list[Decimal], start: uuid.UUID) -> tuple[str, list]:
    """The statement (and its values) of a live Buy's first slice from `start` on."""
    return walk.slice_sql(
        methods={method.pk: method},
        side="Buy",
        amounts=amounts,
        arcs=[("e.id >= %s", [start]), ("e.id < %s", [start])],
        sandbox=False,
    )


def _explain(sql: str, params: list, *settings: str, generic: bool = False) -> list:
    """The statement's plan as run (EXPLAIN ANALYZE), with `generic`: the plan a prepared
    statement keeps after its first runs, made without its values."""
    with connection.cursor() as cursor:
        for setting in settings:
            cursor.execute(f"SET LOCAL {setting}")
        if generic:
            numbered = sql % tuple(f"${n}" for n in range(1, len(params) + 1))
            cursor.execute(f"PREPARE probe_slice AS {numbered}")
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            values = ", ".join(["%s"] * len(params))
            cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE probe_slice({values})", params)
        else:
            cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        (plan,) = cursor.fetchone()
        if generic:
            cursor.execute("DEALLOCATE probe_slice")
    return json.loads(plan) if isinstance(plan, str) else plan


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db
def test_the_amount_check_probes_the_unique_index_whatever_the_pending_count():
    probes, _ = _probes_of_the_slice(3000)
    for node in probes:
        assert node["Node Type"] == "Index Only Scan", node
        assert node["Index Name"] == matching.SLOT_CONSTRAINT, node
        assert node.get("Rows Removed by Filter", 0) == 0, node
        assert node.get("Rows Removed by Index Recheck", 0) == 0, node
        assert node["Actual Rows"] <= 1, node


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db(transaction=True)  # VACUUM, for `stale`
@pytest.mark.parametrize("stale", [False, True])
def test_the_prepared_slices_generic_plan_probes_the_unique_index(stale):
    """The slice is prepared (core.prepared), so after its first runs PostgreSQL keeps
    one plan made without the amounts or the pending count: it probes the same index."""
    probes, rows = _probes_of_the_slice(3000, stale=stale, generic=True)
    assert rows == walk.CHUNK
    for node in probes:
        assert node["Index Name"] == matching.SLOT_CONSTRAINT, node
        assert node.get("Rows Removed by Filter", 0) == 0, node
        assert node["Actual Rows"] <= 1, node


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db(transaction=True)
def test_the_amount_check_probes_the_unique_index_when_statistics_predate_the_pending():
    """Statistics taken while nothing was Pending make every Pending partial index
    look empty, so scanning a whole one looks as cheap as the probe. Only the slot
    index's condition is implied by the check: no other index can be read for it."""
    probes, _ = _probes_of_the_slice(3000, stale=True)
    for node in probes:
        assert node["Index Name"] == matching.SLOT_CONSTRAINT, node
        assert node.get("Rows Removed by Filter", 0) == 0, node
        assert node["Actual Rows"] <= 1, node


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db
def test_the_amount_check_is_a_probe_per_requisite_never_one_pass_over_the_pending():
    """Written as EXISTS, the check may be planned as one hashed pass over every
    Pending order of the amount (the planner's choice whenever probing looks dearer
    than one pass, as with statistics that lag); the LIMIT 1 scalar form has no such
    plan and stays a probe per requisite read. Index scans are switched off here so
    that one pass looks cheapest: the EXISTS form turns into it, this one cannot."""
    probes, rows = _probes_of_the_slice(
        400, "enable_indexscan = off", "enable_indexonlyscan = off", "enable_bitmapscan = off"
    )
    assert rows == walk.CHUNK
    for node in probes:
        assert node["Actual Loops"] == rows, node


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db
@pytest.mark.parametrize("deposit", ["1000000.00", "10.00"])
def test_the_slice_walks_a_few_requisites_of_a_long_ring_whatever_the_plan_expects(deposit):
    """2,000 requisites of one method and one trader: the slice's generic plan reads
    through the (method, id) index no more index entries than one walk, and sorts
    nothing it read of the ring. With the trader's and deposit's joins inside the
    walk's limit, a plan that expected them to keep few rows read the whole ring and
    sorted it. With a deposit too small, nothing is kept and the walk still stops."""
    from orders.models import Requisite

    method = PaymentMethodFactory()
    trader = TraderFactory(deposit=deposit)
    Requisite.objects.bulk_create(
        Requisite(trader=trader, method=method, holder_name="H", account=f"+7990{i:07d}")
        for i in range(2000)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Requisite._meta.db_table}")
    amounts = [Decimal(1000 + k) for k in range(10)]
    plan = _explain(*_first_slice(method, amounts, uuid.uuid4()), generic=True)
    nodes = list(_plan_nodes(plan[0]["Plan"]))
    walks = [node for node in nodes if node.get("Relation Name") == Requisite._meta.db_table]
    assert walks, json.dumps(plan, indent=1)
    for node in walks:
        assert node["Index Name"] == "requisite_method_walk", node
        assert node["Actual Rows"] * node["Actual Loops"] <= walk.CHUNK, node
    for node in nodes:
        if node["Node Type"] == "Sort":
            assert node["Actual Rows"] <= 2 * walk.CHUNK, node
    kept = plan[0]["Plan"]["Actual Rows"]
    assert kept == (walk.CHUNK if deposit == "1000000.00" else 1)  # just the walk's end


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db
def test_the_prepared_slice_keeps_its_generic_plan_for_a_method_smaller_than_most():
    """A method with 3 requisites beside one with 600: a plan made for the small one's
    own figures would look cheaper than the generic plan (made for the average method)
    every time, and PostgreSQL would plan the slice afresh on every creation. Its
    values are out of the planner's sight, so after its first runs it keeps the one
    generic plan."""
    from core import prepared
    from orders.models import Requisite

    small, large = PaymentMethodFactory(), PaymentMethodFactory()
    trader = TraderFactory()
    Requisite.objects.bulk_create(
        Requisite(trader=trader, method=method, holder_name="H", account=f"+7990{i:07d}")
        for method, count in ((small, 3), (large, 600))
        for i in range(count)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Requisite._meta.db_table}")
    for _ in range(10):
        found = list(matching.candidates(methods=[small], side="Buy", amounts=[Decimal("1000")]))
        assert len(found) == 3
    assert prepared.preparing()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            ["%row_number() OVER%"],
        )
        ((generic, custom),) = cursor.fetchall()
    assert generic + custom == 10
    assert generic >= 5, (generic, custom)


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db(transaction=True)
def test_a_candidate_refused_at_the_caps_leaves_no_order_event_or_slot_behind():
    """The slice reads a deposit that covers the Buy; by the time the creation's caps
    UPDATE gets that trader's row, another transaction has spent it. The candidate's
    order row and order.created event, both written before that UPDATE, are taken
    back, and the next trader takes the order."""
    import threading
    import time

    from django.db import connections, transaction

    method = PaymentMethodFactory()
    shop = TerminalFactory(methods=[method])
    spent, other = TraderFactory(deposit="1000.00"), TraderFactory(deposit="1000.00")
    first = RequisiteFactory(trader=spent, method=method)
    second = RequisiteFactory(trader=other, method=method)
    buy_order(terminal=shop, method=method, amount="100.00")  # the least busy goes first
    busy = Order.objects.get().requisite_id
    if busy == first.pk:  # make `first` the idle one, whichever took that Buy
        first, second, spent, other = second, first, other, spent
    holding = threading.Event()

    def spend_the_deposit():
        try:
            with transaction.atomic():
                Balance.objects.filter(trader_id=spent.pk).update(available=0, frozen=1000)
                holding.set()
                time.sleep(1.0)  # the creation reads the old deposit, then waits
        finally:
            connections.close_all()

    spender = threading.Thread(target=spend_the_deposit)
    spender.start()
    holding.wait(5)
    order = buy_order(terminal=shop, method=method, amount="300.00")
    spender.join()
    assert order.requisite_id == second.pk
    assert Order.objects.count() == 2
    assert WebhookEvent.objects.count() == 2
    load = RequisiteLoad.objects.get(requisite=first)
    assert (load.pending, load.turnover) == (0, Decimal("0.00"))


@pytest.mark.django_db(transaction=True)
def test_closes_and_creations_sharing_a_merchant_a_trader_and_requisites_never_deadlock():
    """Everything that locks the shared rows at once, on two requisites of one trader
    and one merchant: Buys confirmed (trader, platform, merchant rows), some with
    another paid amount, Buys cancelled (load row, trader), new Buys (load row,
    trader) and new Sells (load row, merchant). Each takes them in the one lock order,
    so none waits in a circle (PostgreSQL would abort one as a deadlock) and the books
    add up on all three sides."""
    from orders.services import order_cancel, order_confirm
    from orders.tests.factories import rewarded_method, sell_order

    method = rewarded_method()
    shop = TerminalFactory(methods=[method], available="100000.00")
    trader = TraderFactory(deposit="50000.00")
    for _ in range(2):
        RequisiteFactory(trader=trader, method=method)
    pending = [buy_order(terminal=shop, method=method, amount=f"{500 + i}.00") for i in range(12)]

    def close(order, k):
        def call():
            if k % 3 == 2:
                return order_cancel(order_id=order.pk, actor="merchant").status
            paid = None if k % 3 == 0 else order.amount - 1
            return order_confirm(order_id=order.pk, actor="trader", paid_amount=paid).status

        return call

    def new_buy(k):
        return lambda: buy_order(terminal=shop, method=method, amount=f"{700 + k}.00").status

    def new_sell(k):
        return lambda: sell_order(terminal=shop, method=method, amount=f"{900 + k}.00").status

    calls = [close(order, k) for k, order in enumerate(pending)]
    calls += [new_buy(k) for k in range(6)] + [new_sell(k) for k in range(6)]
    results = in_parallel(calls, workers=24)
    assert results[:12] == ["Completed", "Completed", "Cancelled"] * 4
    assert results[12:] == ["Pending"] * 12
    assert ledger_check() == []


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.django_db
def test_creation_runs_the_slice_and_the_caps_prepared_on_a_generic_plan():
    """Planning the slice cost more than running it: each connection prepares it once
    (and the caps' UPDATE), and PostgreSQL settles on the generic plan."""
    method = PaymentMethodFactory()
    shop = TerminalFactory(methods=[method])
    trader = TraderFactory(deposit="100000.00")
    for _ in range(3):
        RequisiteFactory(trader=trader, method=method)
    for k in range(8):
        buy_order(terminal=shop, method=method, amount=f"{500 + k}.00")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s OR statement LIKE %s",
            ["%holds_0%", "%UPDATE orders_requisiteload SET%"],
        )
        found = cursor.fetchall()
    assert len(found) == 2, found
    for statement, generic, custom in found:
        assert generic + custom == 8, statement
        assert generic >= 1, statement
