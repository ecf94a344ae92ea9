"""Factories for finance's rows: merchants (clients), terminals with their balance and
key, payment methods with fee ranges, and a method enabled on a terminal.

Terminals and keys go through the same services as in production (terminal_create
makes the balance row, api_key_issue hashes the key), so a test's terminal is one the
API accepts. `TerminalFactory(key="k", available="1000.00", methods=[m])` gives a
terminal answering to X-API-Key "k", with 1000.00 deposited and `m` enabled.
"""

from decimal import Decimal

import factory
from factory.django import DjangoModelFactory

from finance.models import (
    Client,
    FeeRange,
    MethodType,
    PaymentMethod,
    Side,
    Terminal,
    TerminalMethod,
)
from finance.services import api_key_issue, balance_credit, new_webhook_secret, terminal_create

SBP_BUY = ("100", "300000", "5", "0")
SBP_SELL = ("500", "100000", "3", "50")


class ClientFactory(DjangoModelFactory):
    class Meta:
        model = Client

    name = factory.Sequence(lambda n: f"Merchant {n}")


class TerminalFactory(DjangoModelFactory):
    class Meta:
        model = Terminal
        skip_postgeneration_save = True

    client = factory.SubFactory(ClientFactory)
    name = factory.Sequence(lambda n: f"Shop {n}")
    webhook_secret = factory.LazyFunction(new_webhook_secret)

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        return terminal_create(**kwargs)

    @factory.post_generation
    def key(obj, create, extracted, **kwargs):
        """The raw X-API-Key (default `key-<terminal id>`), kept as `obj.raw_key`."""
        obj.raw_key = extracted or f"key-{obj.pk}"
        api_key_issue(terminal=obj, name="test", raw=obj.raw_key)

    @factory.post_generation
    def available(obj, create, extracted, **kwargs):
        """Money to start with, as one deposit in the ledger."""
        if extracted:
            balance_credit(
                terminal_id=obj.pk, amount=Decimal(str(extracted)), description="Initial deposit"
            )
            obj.balance.refresh_from_db()

    @factory.post_generation
    def methods(obj, create, extracted, **kwargs):
        for method in extracted or ():
            TerminalMethodFactory(terminal=obj, method=method)


def _range(method, side, spec) -> None:
    """spec: (min, max, fee %, fixed fee[, trader reward %])."""
    low, high, fee, fixed, reward = (Decimal(v) for v in (*spec, 0)[:5])
    FeeRange.objects.create(
        method=method,
        side=side,
        min_amount=low,
        max_amount=high,
        fee=fee,
        fixed_fee=fixed,
        trader_reward_percent=reward,
    )


class PaymentMethodFactory(DjangoModelFactory):
    """A bank SBP method with the demo's ranges; `buy=`/`sell=` take (min, max, fee %,
    fixed[, trader reward %]) or False for none."""

    class Meta:
        model = PaymentMethod
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Bank {n} SBP")
    method_type = MethodType.SBP
    nspk_code = factory.Sequence(lambda n: f"1{n:011d}")
    bank_slug = ""

    @factory.post_generation
    def buy(obj, create, extracted, **kwargs):
        if extracted is not False:
            _range(obj, Side.BUY, extracted or SBP_BUY)

    @factory.post_generation
    def sell(obj, create, extracted, **kwargs):
        if extracted is not False:
            _range(obj, Side.SELL, extracted or SBP_SELL)


class CardMethodFactory(PaymentMethodFactory):
    name = factory.Sequence(lambda n: f"Card {n}")
    method_type = MethodType.BANK_CARD
    nspk_code = None


class TerminalMethodFactory(DjangoModelFactory):
    class Meta:
        model = TerminalMethod

    terminal = factory.SubFactory(TerminalFactory)
    method = factory.SubFactory(PaymentMethodFactory)
    enabled = True
    button_name = None
