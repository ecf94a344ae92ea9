"""An account's balance row made on first use while another transaction makes it too."""

import threading
from decimal import Decimal

import pytest
from django.conf import settings
from django.db import connection, transaction

from finance import balance_rows
from finance.models import AccountKind, Balance, Transaction
from finance.services import balance_credit, ledger_check

POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def _rows_made_elsewhere_missing() -> None:
    """The platform's rows are made with the install and with each terminal; a row
    still missing (data loaded around those paths) is made by its first movement."""
    Balance.objects.filter(kind=AccountKind.PLATFORM).delete()


def _made_elsewhere_after_the_update_misses(monkeypatch):
    """The first UPDATE of the platform's row finds nothing; before the credit goes on,
    another connection makes the row and commits (as a parallel first credit would)."""
    changes = []
    unpatched = balance_rows.row_change

    def made_meanwhile():
        try:
            with transaction.atomic():
                balance_rows.account_ensure(platform=False)
        finally:
            connection.close()

    def row_change(lookup, **change):
        changed = unpatched(lookup, **change)
        changes.append(changed)
        if changed is None and len(changes) == 1:
            other = threading.Thread(target=made_meanwhile)
            other.start()
            other.join()
        return changed

    monkeypatch.setattr(balance_rows, "row_change", row_change)
    return changes


@pytest.mark.skipif(not POSTGRES, reason="SQLite lets one writer at a time")
@pytest.mark.django_db(transaction=True)
def test_a_first_credit_lands_on_the_row_another_transaction_made_meanwhile(monkeypatch):
    _rows_made_elsewhere_missing()
    changes = _made_elsewhere_after_the_update_misses(monkeypatch)
    with transaction.atomic():
        entry = balance_credit(
            amount=Decimal("12.34"), description="fee", kind="revenue", platform=False
        )
    assert changes[0] is None and changes[1] is not None
    platform = Balance.objects.get(kind=AccountKind.PLATFORM, sandbox=False)
    assert platform.available == Decimal("12.34")
    assert entry.balance_id == platform.pk
    assert Transaction.objects.filter(balance=platform).count() == 1
    assert ledger_check() == []


@pytest.mark.django_db
def test_a_first_credit_makes_the_platform_row():
    _rows_made_elsewhere_missing()
    balance_credit(amount=Decimal("1.00"), description="fee", kind="revenue", platform=True)
    balance_credit(amount=Decimal("2.00"), description="fee", kind="revenue", platform=True)
    platform = Balance.objects.get(kind=AccountKind.PLATFORM, sandbox=True)
    assert platform.available == Decimal("3.00")
    assert Transaction.objects.filter(balance=platform).count() == 2


@pytest.mark.django_db
def test_a_terminal_and_a_trader_come_with_their_accounts():
    """The accounts a close moves are there before it: the platform's two with any
    terminal, a trader's working deposit with the trader (at zero, no ledger rows)."""
    from finance.tests.factories import TerminalFactory
    from orders.models import Trader

    _rows_made_elsewhere_missing()
    TerminalFactory(sandbox=True)
    assert sorted(
        Balance.objects.filter(kind=AccountKind.PLATFORM).values_list("sandbox", flat=True)
    ) == [False, True]
    trader = Trader.objects.create(name="New trader")
    row = Balance.objects.get(kind=AccountKind.TRADER, trader_id=trader.pk)
    assert (row.available, row.frozen) == (Decimal("0.00"), Decimal("0.00"))
    assert not Transaction.objects.filter(balance=row).exists()
    trader.name = "Renamed"
    trader.save()
    assert Balance.objects.filter(trader_id=trader.pk).count() == 1


@pytest.mark.django_db
def test_the_migration_makes_the_accounts_an_install_lacks_once():
    import importlib

    from django.apps import apps

    from orders.models import Trader

    made = importlib.import_module("orders.migrations.0017_accounts_made_up_front")
    trader = Trader.objects.create(name="Older trader")
    Balance.objects.filter(trader_id=trader.pk).delete()
    _rows_made_elsewhere_missing()
    for _ in range(2):
        made.make_accounts(apps, None)
        assert Balance.objects.filter(trader_id=trader.pk).count() == 1
        assert Balance.objects.filter(kind=AccountKind.PLATFORM).count() == 2
