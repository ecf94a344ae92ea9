"""Movements inside `movements_together` (an order's close): on PostgreSQL every
account's row changes in one statement at the end of the block, in the order the
movements ran (the lock order), and that statement writes their ledger rows too
(elsewhere they follow in one INSERT); the figures are what one statement per
movement gives, and a refusal moves nothing."""

import threading
import time
from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from core.errors import InsufficientFunds
from finance.models import Balance, Transaction
from finance.services import (
    Credit,
    account_ensure,
    balance_credit,
    balance_debit,
    ledger_check,
)
from finance.services import movements_together as together
from finance.tests.factories import TerminalFactory
from orders.tests.factories import TraderFactory
from orders.tests.test_concurrency import in_parallel

pytestmark = pytest.mark.django_db
POSTGRES = connection.vendor == "postgresql"


def _figures(**lookup):
    row = Balance.objects.get(**lookup)
    return row.available, row.frozen


def _close_like(trader, shop, *, paid: str, unfreeze: str, reference: str):
    """A completed Buy's three movements, as a close runs them: the trader's debit with
    its reward, the platform's revenue, the merchant's credit."""
    reward = Credit(Decimal("5.00"), "reward", f"Reward {reference}")
    buy = {"kind": "order_buy", "description": f"Buy {reference}", "reference": reference}
    balance_debit(
        trader_id=trader.pk,
        amount=Decimal(paid),
        unfreeze=Decimal(unfreeze),
        then_credit=reward,
        **buy,
    )
    balance_credit(platform=False, amount=Decimal("20.00"), kind="revenue", description="Revenue")
    balance_credit(terminal_id=shop.pk, amount=Decimal("975.00"), description="Order")


def test_a_closes_rows_and_its_ledger_rows_are_written_in_one_statement():
    trader = TraderFactory(deposit="1000.00")
    Balance.objects.filter(trader_id=trader.pk).update(available=Decimal("0.00"), frozen=1000)
    shop = TerminalFactory(available="10.00")
    account_ensure(platform=False)  # its first movement is another test's
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        with together():
            _close_like(trader, shop, paid="1000.00", unfreeze="1000.00", reference="x")
    statements = [q["sql"] for q in queries.captured_queries]
    balance_writes = [q for q in statements if "UPDATE finance_balance" in q]
    if POSTGRES:
        assert len(balance_writes) == 1 and balance_writes[0].startswith("WITH c0 AS (UPDATE")
        # each UPDATE reads the one before it: the rows are locked in the movements' order
        assert "(SELECT count(*) FROM c1) >= 0" in balance_writes[0]
        # locked first, in the same order, by the statement sent just before it
        locking = statements[statements.index(balance_writes[0]) - 1]
        assert locking.startswith("WITH k0 AS MATERIALIZED (SELECT 1 FROM finance_balance")
        assert "(SELECT count(*) FROM k1) >= 0" in locking
        assert locking.count("FOR NO KEY UPDATE") == 3 and "UPDATE finance" not in locking
        # each lock read on its own too: one missing row does not leave those before it
        assert locking.endswith(
            "SELECT (SELECT count(*) FROM k0), (SELECT count(*) FROM k1), (SELECT count(*) FROM k2)"
        )
        # the ledger's rows from the changes' RETURNING, in the same statement
        assert [q for q in statements if "finance_transaction" in q] == balance_writes
        assert 't AS (INSERT INTO "finance_transaction"' in balance_writes[0]
    else:
        assert len(balance_writes) == 3
        assert [q.split()[0] for q in statements if "finance_transaction" in q] == ["INSERT"]
    assert _figures(trader_id=trader.pk) == (Decimal("5.00"), Decimal("0.00"))
    assert _figures(terminal=shop) == (Decimal("985.00"), Decimal("0.00"))
    assert _figures(kind="platform", sandbox=False) == (Decimal("20.00"), Decimal("0.00"))
    rows = Transaction.objects.filter(reference="x").order_by("created_at")
    assert [(r.transaction_type, r.amount, r.balance_after) for r in rows] == [
        ("order_buy", Decimal("1000.00"), Decimal("0.00")),
        ("reward", Decimal("5.00"), Decimal("5.00")),
    ]
    shop_row = Transaction.objects.get(balance__terminal=shop, client_description="Order")
    assert shop_row.balance_after == Decimal("985.00")
    assert ledger_check() == []


def test_a_refusal_at_the_end_of_the_block_moves_nothing():
    trader = TraderFactory(deposit="100.00")
    shop = TerminalFactory(available="10.00")
    account_ensure(platform=False)
    before = _figures(trader_id=trader.pk), _figures(terminal=shop)
    rows = Transaction.objects.count()
    with pytest.raises(InsufficientFunds, match="available 100.00, required 500.00"):
        with transaction.atomic(), together():
            _close_like(trader, shop, paid="500.00", unfreeze="0", reference="y")
    assert (_figures(trader_id=trader.pk), _figures(terminal=shop)) == before
    # the platform's and the merchant's changes matched, and wrote their rows: undone too
    assert Transaction.objects.count() == rows
    assert ledger_check() == []


def test_the_same_row_twice_in_a_block_keeps_both_changes():
    """One statement changes a row once: a second movement of an account already
    queued sends what came before it first."""
    shop = TerminalFactory(available="10.00")
    with transaction.atomic(), together():
        balance_credit(terminal_id=shop.pk, amount=Decimal("1.00"), description="a")
        balance_credit(terminal_id=shop.pk, amount=Decimal("2.00"), description="b")
        balance_credit(platform=True, amount=Decimal("3.00"), kind="revenue", description="c")
        balance_credit(terminal_id=shop.pk, amount=Decimal("4.00"), description="d")
    assert _figures(terminal=shop) == (Decimal("17.00"), Decimal("0.00"))
    afters = dict(
        Transaction.objects.filter(
            balance__terminal=shop, client_description__in=["a", "b", "d"]
        ).values_list("client_description", "balance_after")
    )
    assert afters == {"a": Decimal("11.00"), "b": Decimal("13.00"), "d": Decimal("17.00")}
    assert ledger_check() == []


def test_an_accounts_first_movement_in_a_block_makes_its_row():
    shop = TerminalFactory()
    # Made with the terminal; a row still missing (data loaded around that) is made here.
    Balance.objects.filter(kind="platform").delete()
    with transaction.atomic(), together():
        balance_credit(platform=True, amount=Decimal("3.00"), kind="revenue", description="c")
        balance_credit(terminal_id=shop.pk, amount=Decimal("4.00"), description="d")
    assert _figures(kind="platform", sandbox=True) == (Decimal("3.00"), Decimal("0.00"))
    assert _figures(terminal=shop) == (Decimal("4.00"), Decimal("0.00"))
    assert Transaction.objects.get(client_description="c").balance_after == Decimal("3.00")
    assert ledger_check() == []


@contextmanager
def _held_while(movements, **row):
    """The balance `row` locked in a transaction of the test's own, while `movements`
    run inside movements_together in another transaction and thread, started once the
    row is held; the block runs with the row held and gets the list of that thread's
    errors, which is complete once the block's transaction has ended."""
    held, errors = threading.Event(), []

    def run():
        held.wait(10)
        try:
            with transaction.atomic(), together():
                movements()
        except Exception as exc:  # reported to the test
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        with transaction.atomic():
            Balance.objects.select_for_update().get(**row)
            held.set()
            yield errors
    finally:
        held.set()
        thread.join(10)


def _waiting_for_a_lock() -> bool:
    return bool(_statements_waiting())


def _statements_waiting() -> list[str]:
    """The text of each statement waiting for a lock in this database now (read afresh:
    inside a transaction PostgreSQL keeps its first reading of the activity)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT query FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.skipif(not POSTGRES, reason="the rows' locking statement: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_close_waits_for_its_rows_in_the_statement_that_only_locks_them():
    """A close whose rows another transaction holds waits in the small statement that
    locks them; the one that changes them and writes the ledger's rows starts once it
    has them, and waits on nothing (PostgreSQL sets up a whole statement again for
    each row it waited on, to recheck it)."""
    trader = TraderFactory(deposit="1000.00")
    Balance.objects.filter(trader_id=trader.pk).update(available=Decimal("0.00"), frozen=1000)
    shop = TerminalFactory(available="10.00")
    account_ensure(platform=False)
    waited = []
    with _held_while(
        lambda: _close_like(trader, shop, paid="1000.00", unfreeze="1000.00", reference="w"),
        terminal=shop,  # the last row it locks
    ) as errors:
        deadline = time.monotonic() + 10
        while not waited and time.monotonic() < deadline:
            waited = _statements_waiting()
            time.sleep(0.01)
        balance_credit(terminal_id=shop.pk, amount=Decimal("1.00"), description="first")
    assert errors == []
    assert len(waited) == 1 and waited[0].startswith("WITH k0 AS MATERIALIZED (SELECT 1 FROM")
    assert _figures(trader_id=trader.pk) == (Decimal("5.00"), Decimal("0.00"))
    assert _figures(terminal=shop) == (Decimal("986.00"), Decimal("0.00"))
    assert ledger_check() == []


@pytest.mark.skipif(not POSTGRES, reason="rows written in the balances' statement: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_rows_written_after_waiting_for_a_balance_come_after_the_ones_waited_for():
    """A close whose statement waits for a balance row another transaction holds
    stamps its ledger rows after that transaction's: the account's last row is its
    latest figure."""
    account_ensure(platform=False)
    second = lambda: balance_credit(  # noqa: E731
        platform=False, amount=Decimal("2.00"), kind="revenue", description="2"
    )
    with _held_while(second, kind="platform", sandbox=False) as errors:
        deadline = time.monotonic() + 10
        while not _waiting_for_a_lock() and time.monotonic() < deadline:
            time.sleep(0.01)
        balance_credit(platform=False, amount=Decimal("1.00"), kind="revenue", description="1")
    assert errors == []
    total = Balance.objects.get(kind="platform", sandbox=False).total
    last = Transaction.objects.filter(balance__kind="platform", balance__sandbox=False)
    last = last.order_by("-created_at", "-id")[:2]
    assert [(r.client_description, r.balance_after) for r in last] == [
        ("2", total),
        ("1", total - 2),
    ]
    assert ledger_check() == []


def _committed(query):
    """What another connection reads (what has been committed)."""
    return in_parallel([query], workers=1)[0]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not POSTGRES, reason="riders and COMMIT ride on PostgreSQL only")
def test_writes_waiting_ride_on_the_balances_statement_that_commits():
    """What waits in a riding block (an audit entry here) is written by the balances'
    statement, with its numbered key read back, and committed with it."""
    from audit.models import AuditEntry
    from audit.services import audit_record
    from core.riding import riding

    shop = TerminalFactory()
    with transaction.atomic():
        with riding():
            audit_record(
                actor_kind="operator", actor_id="1", action="test.ride", obj=shop, ride=True
            )
            with CaptureQueriesContext(connection) as captured:
                with together(commit=True):
                    balance_credit(terminal_id=shop.pk, amount=Decimal("5.00"), description="in")
            assert _committed(lambda: AuditEntry.objects.filter(action="test.ride").count()) == 1
            assert _committed(lambda: _figures(terminal_id=shop.pk)) == (
                Decimal("5.00"),
                Decimal(0),
            )
    statements = [q["sql"] for q in captured.captured_queries]
    changing = [sql for sql in statements if "UPDATE finance_balance" in sql]
    assert len(changing) == 1 and '"audit_auditentry"' in changing[0]
    entry = AuditEntry.objects.get(action="test.ride")
    assert entry.pk is not None
    assert ledger_check() == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not POSTGRES, reason="riders and COMMIT ride on PostgreSQL only")
def test_a_rider_that_changes_no_row_refuses_the_commit_and_writes_nothing():
    """An UPDATE riding on the statement that would commit, whose key no row has (save()
    raises for it): the statement refuses itself, nothing is committed, and the caller
    is told to take the action again the usual way."""
    import uuid

    from core.fast_insert import update_row
    from core.prepared import NotCommittedAhead
    from core.riding import riding

    shop = TerminalFactory()
    ghost = Balance.objects.get(terminal_id=shop.pk)
    ghost.pk = uuid.uuid4()  # no row has this key
    with pytest.raises(NotCommittedAhead):
        with transaction.atomic():
            with riding():
                update_row(ghost, ["updated_at"], ride=True)
                with together(commit=True):
                    balance_credit(terminal_id=shop.pk, amount=Decimal("5.00"), description="in")
    assert _figures(terminal_id=shop.pk) == (Decimal(0), Decimal(0))
    assert not Transaction.objects.filter(balance__terminal_id=shop.pk).exists()
