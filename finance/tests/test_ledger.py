from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from finance.models import Balance
from finance.services import balance_adjust, ledger_check
from paymentsvc.errors import InsufficientFunds


def test_check_ledger_passes_on_demo_data(demo):
    call_command("check_ledger", verbosity=0)
    assert ledger_check() == []


def test_check_ledger_fails_when_a_balance_drifts(demo):
    Balance.objects.filter(terminal=demo.shop).update(available=Decimal("100000.01"))
    with pytest.raises(CommandError):
        call_command("check_ledger", verbosity=0)
    assert [p.field for p in ledger_check()] == ["total"]


def test_withdrawal_beyond_available_is_refused_and_changes_nothing(demo):
    with pytest.raises(InsufficientFunds):
        balance_adjust(
            terminal_id=demo.shop.pk,
            amount=Decimal("-100000.01"),
            description="too much",
            actor="op",
        )
    assert Balance.objects.get(terminal=demo.shop).available == Decimal("100000.00")


def test_database_refuses_a_negative_balance(demo):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Balance.objects.filter(terminal=demo.shop).update(available=Decimal("-1"))


def test_seed_demo_twice_leaves_one_copy(demo):
    from finance.models import ApiKey, PaymentMethod, Terminal, Transaction
    from orders.models import Requisite

    counts = [
        Terminal.objects.count(),
        ApiKey.objects.count(),
        PaymentMethod.objects.count(),
        Requisite.objects.count(),
        Transaction.objects.count(),
    ]
    call_command("seed_demo", force=True, verbosity=0)
    assert counts == [
        Terminal.objects.count(),
        ApiKey.objects.count(),
        PaymentMethod.objects.count(),
        Requisite.objects.count(),
        Transaction.objects.count(),
    ]
    # Four terminals (Sandbox Shop among them), five keys with the revoked one, ten
    # live requisites and the sandbox trader's ten, two initial deposits.
    assert counts == [4, 5, 8, 20, 2]


def test_seed_demo_refuses_with_debug_off_without_force(db, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("seed_demo", verbosity=0)
