from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from core.errors import InsufficientFunds
from finance.models import Balance
from finance.services import balance_adjust, ledger_check
from finance.tests.factories import TerminalFactory
from orders.tests.factories import RequisiteFactory, buy_order, sell_order


@pytest.fixture
def shop(db):
    TerminalFactory()  # another terminal, with nothing in its ledger
    return TerminalFactory(available="100000.00")


def test_check_ledger_passes_when_balances_match_their_ledger(shop):
    call_command("check_ledger", verbosity=0)
    assert ledger_check() == []


def test_check_ledger_fails_when_a_balance_drifts(shop):
    Balance.objects.filter(terminal=shop).update(available=Decimal("100000.01"))
    with pytest.raises(CommandError):
        call_command("check_ledger", verbosity=0)
    assert [p.field for p in ledger_check()] == ["total"]


def test_withdrawal_beyond_available_is_refused_and_changes_nothing(shop):
    with pytest.raises(InsufficientFunds):
        balance_adjust(
            terminal_id=shop.pk,
            amount=Decimal("-100000.01"),
            description="too much",
            actor="op",
        )
    assert Balance.objects.get(terminal=shop).available == Decimal("100000.00")


def test_database_refuses_a_negative_balance(shop):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Balance.objects.filter(terminal=shop).update(available=Decimal("-1"))


def test_a_pending_sell_freezes_its_amount_and_fee_and_the_ledger_still_checks(db):
    method = RequisiteFactory().method
    shop = TerminalFactory(available="5000.00", methods=[method])
    buy_order(terminal=shop, method=method, amount="700.00")  # Buy moves no money yet
    sell_order(terminal=shop, method=method, amount="1000.00")
    balance = Balance.objects.get(terminal=shop)
    # 1000 + 3 % + 50 fixed (the factory method's Sell range)
    assert (balance.available, balance.frozen) == (Decimal("3920.00"), Decimal("1080.00"))
    assert ledger_check() == []


@pytest.mark.django_db
def test_a_credit_is_one_row_update_and_its_transaction():
    """The row is locked by the UPDATE that credits it (no SELECT ... FOR UPDATE
    first), and a trader's or the platform's row is made on first use."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from finance.services import balance_credit

    terminal = TerminalFactory(available="10.10")
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        txn = balance_credit(terminal_id=terminal.pk, amount=Decimal("0.20"), description="x")
    statements = [q["sql"].split()[0] for q in queries.captured_queries]
    assert statements == ["UPDATE", "INSERT"], statements
    balance = Balance.objects.get(terminal=terminal)
    assert (balance.available, txn.balance_after, txn.balance_id) == (
        Decimal("10.30"),
        Decimal("10.30"),
        balance.pk,
    )
    txn = balance_credit(platform=False, amount=Decimal("1.05"), description="y", kind="revenue")
    assert txn.balance.kind == "platform" and txn.balance_after == Decimal("1.05")
    assert ledger_check() == []


def buy_debit(trader, amount: str, *, unfreeze: str):
    from finance.services import balance_debit

    return balance_debit(
        trader_id=trader.pk,
        amount=Decimal(amount),
        unfreeze=Decimal(unfreeze),
        kind="order_buy",
        description="Buy",
    )


@pytest.mark.django_db
def test_a_debit_and_an_unfreeze_are_one_row_update_each():
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from finance.services import balance_credit, balance_unfreeze
    from orders.tests.factories import TraderFactory

    trader = TraderFactory(deposit="1000.00")
    Balance.objects.filter(trader_id=trader.pk).update(available=Decimal("400.00"), frozen=600)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        buy_debit(trader, "530.00", unfreeze="200.00")
        balance_unfreeze(trader_id=trader.pk, amount=Decimal("100.00"))
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["UPDATE", "INSERT", "UPDATE"]
    row = Balance.objects.get(trader_id=trader.pk)
    assert (row.available, row.frozen) == (Decimal("170.00"), Decimal("300.00"))
    # 170.00 + 300.00 frozen does not cover 470.01; nothing moves
    with pytest.raises(InsufficientFunds, match="available 170.00, required 170.01"):
        buy_debit(trader, "470.01", unfreeze="300.00")
    with pytest.raises(Exception, match="Frozen 300.00 is below 300.01"):
        balance_unfreeze(trader_id=trader.pk, amount=Decimal("300.01"))
    row = Balance.objects.get(trader_id=trader.pk)
    assert (row.available, row.frozen) == (Decimal("170.00"), Decimal("300.00"))
    balance_credit(trader_id=trader.pk, amount=Decimal("0.01"), description="z")
    assert Balance.objects.get(trader_id=trader.pk).available == Decimal("170.01")


@pytest.mark.django_db
def test_a_credit_that_follows_a_movement_shares_its_row_update():
    """A Buy's debit and the reward after it: one UPDATE, two ledger rows in that
    order, each with the total after it; the debit alone must be covered (the credit
    after it does not help), and a refusal moves nothing."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from finance.models import Transaction
    from finance.services import Credit, balance_credit, balance_debit
    from orders.tests.factories import TraderFactory

    trader = TraderFactory(deposit="1000.00")
    Balance.objects.filter(trader_id=trader.pk).update(available=Decimal("400.00"), frozen=600)
    reward = Credit(Decimal("15.00"), "reward", "Reward x")

    def buy(amount: str, unfreeze: str, reference: str):
        return balance_debit(
            trader_id=trader.pk,
            amount=Decimal(amount),
            unfreeze=Decimal(unfreeze),
            kind="order_buy",
            description=f"Buy {reference}",
            reference=reference,
            then_credit=reward,
        )

    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        buy("530.00", "200.00", "x")
    # one row update; the two rows (outside a close, which writes them in one INSERT)
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["UPDATE", "INSERT", "INSERT"]
    row = Balance.objects.get(trader_id=trader.pk)
    assert (row.available, row.frozen) == (Decimal("85.00"), Decimal("400.00"))
    rows = list(
        Transaction.objects.filter(reference="x")
        .order_by("created_at")
        .values_list("transaction_type", "amount", "balance_after", "client_description")
    )
    assert rows == [
        ("order_buy", Decimal("530.00"), Decimal("470.00"), "Buy x"),
        ("reward", Decimal("15.00"), Decimal("485.00"), "Reward x"),
    ]
    # 85.00 + 400.00 frozen: a debit of 485.01 is refused though the reward would cover it
    with pytest.raises(InsufficientFunds):
        buy("485.01", "400.00", "y")
    assert not Transaction.objects.filter(reference="y").exists()
    row = Balance.objects.get(trader_id=trader.pk)
    assert (row.available, row.frozen) == (Decimal("85.00"), Decimal("400.00"))
    # a Sell's credit and its reward
    balance_credit(
        trader_id=trader.pk,
        amount=Decimal("100.00"),
        kind="order_sell",
        description="Sell z",
        reference="z",
        then_credit=reward,
    )
    assert list(
        Transaction.objects.filter(reference="z")
        .order_by("created_at")
        .values_list("transaction_type", "balance_after")
    ) == [("order_sell", Decimal("585.00")), ("reward", Decimal("600.00"))]
    ledger_check()
