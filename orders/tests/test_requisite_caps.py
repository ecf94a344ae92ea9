"""A requisite's max_pending and daily_limit hold under any concurrency (docs/orders.md
#requisite-limits): its RequisiteLoad row is raised by a conditional UPDATE in the creating
transaction and kept exact by every transition."""

from collections import Counter
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from conftest import buy_body, sell_body
from core.db import DbNow
from core.fast_insert import insert_unless_held
from orders.models import Order, Requisite, RequisiteLoad
from orders.services import matching, order_complete_by_dispute, order_expire_due, placement
from orders.services.load import requisite_load_rebuild, utc_day
from orders.services.matching import SLOT_CONSTRAINT
from orders.tests.test_concurrency import in_parallel
from orders.tests.world import World, trader_for

URL = "/api/v1/order/"
NO_TRADERS = (
    "No available traders that match order requirements. Try another amount or payment method"
)


def caps_world() -> World:
    """A shop with 100000.00 deposited; two live traders' requisites on each of VTB SBP
    and Sberbank SBP."""
    return World.build({"VTB SBP": 2, "Sberbank SBP": 2}, available="100000.00")


def vtb_requisites(**caps) -> list[Requisite]:
    requisites = list(
        Requisite.objects.filter(method__name="VTB SBP", trader__sandbox=False).order_by("pk")
    )
    Requisite.objects.filter(pk__in=[r.pk for r in requisites]).update(**caps)
    return requisites


def create(world, amount, i, method="VTB SBP", side="Buy"):
    body = (
        buy_body(world, method=method, amount=str(amount), client_order_id=f"cap-{i}")
        if side == "Buy"
        else sell_body(world, method=method, amount=str(amount), client_order_id=f"cap-{i}")
    )
    return world.api.post(URL, body)


def figures(requisite) -> tuple[int, Decimal]:
    load = RequisiteLoad.objects.get(requisite=requisite)
    today = load.turnover if load.day == utc_day() else Decimal(0)
    return load.pending, today


def counted(requisite) -> tuple[int, Decimal]:
    """The same figures counted from the orders themselves."""
    orders = Order.objects.filter(requisite=requisite)
    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    today = orders.filter(created_at__gte=start, status__in=["Pending", "Completed"])
    return (
        orders.filter(status="Pending").count(),
        sum((o.amount for o in today), Decimal(0)),
    )


@pytest.mark.django_db
class TestOneByOne:
    def test_max_pending_refuses_then_frees_on_cancel(self):
        world = caps_world()
        vtb_requisites(max_pending=1)
        first, second = create(world, 1000, 1), create(world, 1001, 2)
        assert first.status_code == second.status_code == 201
        third = create(world, 1002, 3)
        assert third.status_code == 500
        assert third.json()["message"] == NO_TRADERS
        world.api.post(f"{URL}{first.json()['id']}/cancel")
        assert create(world, 1003, 4).status_code == 201

    def test_completion_frees_a_pending_place_but_keeps_the_turnover(self):
        world = caps_world()
        (requisite, other) = vtb_requisites(max_pending=1, daily_limit=Decimal("2500.00"))
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        order = create(world, 1000, 1).json()
        assert figures(requisite) == (1, Decimal("1000.00"))
        trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
        assert figures(requisite) == (0, Decimal("1000.00"))
        assert create(world, 1000, 2).status_code == 201
        assert figures(requisite) == (1, Decimal("2000.00"))
        # 500.01 more would pass the limit of 2500 once 2000 is counted.
        assert create(world, "500.01", 3).status_code == 500
        assert figures(requisite) == counted(requisite) == (1, Decimal("2000.00"))

    def test_daily_limit_takes_an_amount_up_to_the_cent(self):
        world = caps_world()
        (requisite, other) = vtb_requisites(daily_limit=Decimal("1000.10"))
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        assert create(world, "500.04", 1).status_code == 201
        assert create(world, "500.07", 2).status_code == 500  # a cent past the limit
        assert create(world, "500.04", 3).status_code == 500  # the slot is taken anyway
        assert create(world, "500.06", 4).status_code == 201  # exactly the limit
        assert figures(requisite) == (2, Decimal("1000.10"))

    def test_sells_count_too_and_a_cancel_gives_the_amount_back(self):
        world = caps_world()
        (requisite, other) = vtb_requisites(daily_limit=Decimal("3000.00"))
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        sell = create(world, 2000, 1, side="Sell").json()
        assert create(world, 1500, 2).status_code == 500
        trader_for(sell).post(f"/api/v1/trader/orders/{sell['id']}/cancel")
        assert figures(requisite) == (0, Decimal(0))
        assert create(world, 1500, 3).status_code == 201

    def test_expiry_releases_and_a_dispute_completion_counts_again(self):
        world = caps_world()
        (requisite, other) = vtb_requisites(max_pending=1)
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        order = create(world, 1000, 1).json()
        Order.objects.filter(pk=order["id"]).update(expires_at=DbNow())
        assert order_expire_due() == 1
        assert figures(requisite) == (0, Decimal(0))
        order_complete_by_dispute(order_id=order["id"], paid_amount=Decimal("900"), actor="op")
        assert figures(requisite) == counted(requisite) == (0, Decimal("1000.00"))

    def test_an_overdue_order_is_expired_to_make_room(self):
        world = caps_world()
        vtb_requisites(max_pending=1)
        ids = [create(world, 1000 + i, i).json()["id"] for i in range(2)]
        Order.objects.filter(pk__in=ids).update(expires_at=DbNow())
        assert create(world, 1005, 5).status_code == 201
        assert sorted(Order.objects.filter(pk__in=ids).values_list("status", flat=True)) == [
            "Expired",
            "Expired",
        ]

    @pytest.mark.parametrize("availability", [False, True])
    def test_a_holder_the_sweep_expires_after_the_walk_is_free(self, monkeypatch, availability):
        """The sweep expires the overdue holder between the walk, which saw it hold the
        amount, and the look for overdue holders, which then finds none: the creation
        (or the availability answer) matches once more rather than refuse."""
        world = caps_world()
        (requisite, other) = vtb_requisites()
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        held = create(world, 1000, 1).json()
        Order.objects.filter(pk=held["id"]).update(expires_at=DbNow())
        look = matching.overdue_holders

        def sweep_first(**kwargs):
            assert order_expire_due() == 1
            return look(**kwargs)

        monkeypatch.setattr(matching, "overdue_holders", sweep_first)
        if availability:
            body = buy_body(world, method="VTB SBP", amount="1000")
            body.pop("client_order_id")
            answer = world.api.post(f"{URL}availability", body)
            assert answer.status_code == 200 and answer.json()["available"] is True
            return
        answer = create(world, 1000, 2)
        assert answer.status_code == 201, answer.json()
        assert Order.objects.get(pk=answer.json()["id"]).requisite_id == requisite.pk
        assert Order.objects.get(pk=held["id"]).status == "Expired"

    def test_a_live_holder_is_still_a_refusal(self, monkeypatch):
        world = caps_world()
        (requisite, other) = vtb_requisites()
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        assert create(world, 1000, 1).status_code == 201
        tries = []
        place = placement._order_place
        monkeypatch.setattr(placement, "_order_place", lambda **kw: tries.append(1) or place(**kw))
        answer = create(world, 1000, 2)
        assert answer.status_code == 500 and answer.json()["message"] == NO_TRADERS
        assert len(tries) == 1

    def test_a_new_utc_day_starts_the_turnover_from_zero(self):
        world = caps_world()
        (requisite, other) = vtb_requisites(daily_limit=Decimal("1000.00"))
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        assert create(world, 1000, 1).status_code == 201
        assert create(world, 999, 2).status_code == 500
        RequisiteLoad.objects.filter(requisite=requisite).update(day=utc_day() - timedelta(days=1))
        assert create(world, 999, 3).status_code == 201
        assert figures(requisite) == (2, Decimal("999.00"))

    def test_a_requisite_without_a_row_gets_one_counted_from_its_orders(self):
        world = caps_world()
        (requisite, other) = vtb_requisites(max_pending=2)
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        assert create(world, 1000, 1).status_code == 201
        RequisiteLoad.objects.filter(requisite=requisite).delete()
        assert create(world, 1001, 2).status_code == 201
        assert create(world, 1002, 3).status_code == 500
        assert figures(requisite) == counted(requisite) == (2, Decimal("2001.00"))

    def test_rebuild_agrees_with_the_rows_kept_by_the_transitions(self):
        world = caps_world()
        orders = [create(world, 1000 + i, i, method="Sberbank SBP").json() for i in range(6)]
        trader_for(orders[0]).post(f"/api/v1/trader/orders/{orders[0]['id']}/confirm")
        world.api.post(f"{URL}{orders[1]['id']}/cancel")
        kept = {load.pk: (load.pending, load.turnover) for load in RequisiteLoad.objects.all()}
        requisite_load_rebuild()
        rebuilt = {load.pk: (load.pending, load.turnover) for load in RequisiteLoad.objects.all()}
        assert {pk: rebuilt[pk] for pk in kept} == kept
        assert all(rebuilt[pk] == (0, 0) for pk in rebuilt.keys() - kept.keys())
        assert sum(p for p, _ in kept.values()) == 4


@pytest.mark.django_db
def test_only_the_slot_index_counts_as_a_taken_slot():
    world = caps_world()
    order = Order.objects.get(pk=create(world, 1000, 1, method="Sberbank SBP").json()["id"])
    fields = {f.attname: getattr(order, f.attname) for f in Order._meta.concrete_fields}
    same_slot = Order(**{**fields, "id": Order._meta.pk.default()})
    with transaction.atomic():
        assert not insert_unless_held(same_slot, held_by=SLOT_CONSTRAINT)
        # nothing written, and the transaction goes on without a savepoint
        assert Order.objects.filter(pk=same_slot.pk).count() == 0
    same_id = Order(**{**fields, "amount": Decimal("1234.00")})
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_unless_held(same_id, held_by=SLOT_CONSTRAINT)
    no_amount = Order(**{**fields, "id": Order._meta.pk.default(), "amount": Decimal(0)})
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_unless_held(no_amount, held_by=SLOT_CONSTRAINT)  # a CHECK, not skipped
    assert list(Order.objects.values_list("pk", flat=True)) == [order.pk]


@pytest.mark.django_db(transaction=True)
class TestInParallel:
    """Real parallel requests, each on its own connection (the attack in issue 11)."""

    def test_max_pending_one_holds_for_32_parallel_creations(self):
        world = caps_world()
        requisites = vtb_requisites(max_pending=1)
        calls = [lambda i=i: create(world, 1000 + i, i).status_code for i in range(32)]
        statuses = Counter(in_parallel(calls, workers=16))
        assert statuses == {201: 2, 500: 30}
        for requisite in requisites:
            assert figures(requisite) == counted(requisite) == (1, counted(requisite)[1])

    def test_a_daily_limit_one_order_away_takes_exactly_one_more(self):
        world = caps_world()
        (requisite, other) = vtb_requisites(daily_limit=Decimal("2500.00"))
        Requisite.objects.filter(pk=other.pk).update(is_active=False)
        assert create(world, 1000, "first").status_code == 201
        # 1,500 of room: one more order of 1,000 fits, a second does not.
        calls = [
            lambda i=i: create(world, Decimal("1000.00") + i, i).status_code for i in range(24)
        ]
        statuses = Counter(in_parallel(calls, workers=12))
        assert statuses == {201: 1, 500: 23}
        pending, turnover = figures(requisite)
        assert (pending, turnover) == counted(requisite)
        assert pending == 2 and Decimal("2000") <= turnover <= Decimal("2500")

    def test_creations_racing_cancels_leave_the_figures_exact(self):
        world = caps_world()
        requisites = vtb_requisites(max_pending=3)
        first = [create(world, 1000 + i, i).json() for i in range(6)]
        cancels = [lambda o=o: world.api.post(f"{URL}{o['id']}/cancel").status_code for o in first]
        creates = [lambda i=i: create(world, 2000 + i, 100 + i).status_code for i in range(12)]
        results = in_parallel(
            [call for pair in zip(cancels * 2, creates, strict=True) for call in pair]
        )
        assert set(results) <= {200, 201, 409, 500}
        for requisite in requisites:
            pending, turnover = figures(requisite)
            assert (pending, turnover) == counted(requisite)
            assert pending <= 3


@pytest.mark.django_db
def test_a_new_requisite_has_its_load_row_from_the_start():
    from orders.tests.factories import RequisiteFactory

    requisite = RequisiteFactory()
    load = RequisiteLoad.objects.get(requisite=requisite)
    assert (load.pending, load.turnover, load.day) == (0, 0, utc_day())
