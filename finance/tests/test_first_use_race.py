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
    assert not Balance.objects.filter(kind=AccountKind.PLATFORM).exists()
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
    assert not Balance.objects.filter(kind=AccountKind.PLATFORM).exists()
    balance_credit(amount=Decimal("1.00"), description="fee", kind="revenue", platform=True)
    balance_credit(amount=Decimal("2.00"), description="fee", kind="revenue", platform=True)
    platform = Balance.objects.get(kind=AccountKind.PLATFORM, sandbox=True)
    assert platform.available == Decimal("3.00")
    assert Transaction.objects.filter(balance=platform).count() == 2
