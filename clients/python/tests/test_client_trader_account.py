"""TraderClient's account calls against a running service: who the trader is, its
requisites and their switch (an operator's switch-off stays), its statistics."""

from decimal import Decimal

import pytest
from paymentsvc_client import (
    ConflictError,
    NotFoundError,
    OrderSide,
    TraderClient,
)
from paymentsvc_client.models import (
    RequisiteDisabledReason,
    StatsPeriod,
    Trader,
    TraderRequisite,
    TraderStats,
)

from orders.services.requisite_state import requisite_switch

from .conftest import TRADER_KEYS

pytestmark = pytest.mark.django_db(transaction=True)


def test_me_requisites_switch_and_stats(client, method_ids, live):
    with TraderClient(live, TRADER_KEYS[0]) as one, TraderClient(live, TRADER_KEYS[1]) as two:
        me = one.me()
        assert isinstance(me, Trader) and me.name == "Trader One" and me.sandbox is False

        requisites = one.requisites()
        assert requisites and all(isinstance(r, TraderRequisite) for r in requisites)
        first = requisites[0]
        assert first.is_active and first.disabled_reason is None
        assert isinstance(first.daily_limit, Decimal) and isinstance(first.turnover_today, Decimal)

        off = one.disable_requisite(first.id)
        assert off.is_active is False and off.disabled_reason is RequisiteDisabledReason.TRADER
        assert one.enable_requisite(first.id).is_active is True
        with pytest.raises(NotFoundError):
            two.disable_requisite(first.id)

        requisite_switch(requisite_id=first.id, on=False, by_operator=True)
        with pytest.raises(ConflictError) as refused:
            one.enable_requisite(first.id)
        assert refused.value.code == "disabled_by_operator"
        requisite_switch(requisite_id=first.id, on=True, by_operator=True)

        order = client.orders.create(
            client_order_id="sdk-stats-1",
            order_side=OrderSide.BUY,
            payment_method_id=first.method_id,
            amount=Decimal("1000.00"),
        )
        holders = [TraderClient(live, key) for key in TRADER_KEYS]
        (holder,) = [t for t in holders if order.id in {o.id for o in t.orders.list_all()}]
        holder.orders.confirm(order.id)
        stats = holder.stats(StatsPeriod.WEEK)
        assert isinstance(stats, TraderStats) and stats.period is StatsPeriod.WEEK
        assert stats.orders >= 1 and stats.completed >= 1
        assert stats.turnover >= Decimal("1000.00")
        assert holder.stats().period is StatsPeriod.DAY
        for t in holders:
            t.close()
