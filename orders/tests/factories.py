"""Factories for orders' rows: traders with a key, requisites, and orders created
through order_create (the way the API creates them, money and matching included).

`RequisiteFactory(method=m)` gives an active requisite of a new trader on `m`;
`buy_order(terminal=t, method=m, amount="1000.00")` a Pending Buy matched to it.
"""

from decimal import Decimal

import factory
from factory.django import DjangoModelFactory

from finance.services import balance_credit
from finance.tests.factories import PaymentMethodFactory
from orders.models import Order, Requisite, Trader
from orders.services import order_create, trader_key_issue


def rewarded_method():
    """A method charging 5 % on a Buy (3 % + 50.00 on a Sell) whose trader's reward is
    2.5 % of a Buy's paid amount and 1.5 % of a Sell's amount: the books' examples."""
    method = PaymentMethodFactory()
    for fee_range in method.ranges.all():
        fee_range.trader_reward_percent = Decimal("2.5" if fee_range.side == "Buy" else "1.5")
        fee_range.save()
    return method


class TraderFactory(DjangoModelFactory):
    class Meta:
        model = Trader
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Trader {n}")

    @factory.post_generation
    def key(obj, create, extracted, **kwargs):
        """The raw X-API-Key (default `trader-key-<trader id>`), kept as `obj.raw_key`."""
        obj.raw_key = extracted or f"trader-key-{obj.pk}"
        trader_key_issue(trader=obj, name="test", raw=obj.raw_key)

    @factory.post_generation
    def deposit(obj, create, extracted, **kwargs):
        """The trader's working deposit (default 100000000.00, enough for any Buy of
        a test; "0" for none), credited as an `Initial deposit`."""
        amount = Decimal(str(extracted if extracted is not None else "100000000.00"))
        if amount > 0:
            balance_credit(trader_id=obj.pk, amount=amount, description="Initial deposit")


class RequisiteFactory(DjangoModelFactory):
    class Meta:
        model = Requisite

    trader = factory.SubFactory(TraderFactory)
    method = factory.SubFactory(PaymentMethodFactory)
    holder_name = factory.Sequence(lambda n: f"Holder {n}")
    account = factory.Sequence(lambda n: f"+7999{n:07d}")
    daily_limit = Decimal(100_000_000)


_orders = iter(range(1, 10**9))


def buy_order(*, terminal, method, amount="1000.00", **fields) -> Order:
    fields.setdefault("client_order_id", f"order-{next(_orders)}")
    return order_create(
        terminal=terminal,
        side="Buy",
        amount=Decimal(str(amount)),
        payment_method_id=str(method.pk),
        **fields,
    )


def sell_order(*, terminal, method, amount="1000.00", account="+79991234567", **fields) -> Order:
    fields.setdefault("client_order_id", f"sell-{next(_orders)}")
    return order_create(
        terminal=terminal,
        side="Sell",
        amount=Decimal(str(amount)),
        payment_method_id=str(method.pk),
        customer_account=account,
        **fields,
    )
