"""Found by the auditor: on SQLite, sums of money came back as floats, and
`check_ledger` reported a balance of 650751.02 frozen as drifting from reserves that
summed to 650751.019999999."""

from decimal import Decimal

import pytest

from finance.models import Balance
from finance.services import balance_credit, balance_reserve, ledger_check

pytestmark = pytest.mark.django_db


def test_ledger_check_does_not_mistake_float_sums_for_drift(demo):
    # 300 x 0.07 added as floats is 21.000000000000064, read back as 21.0000000000001
    for i in range(300):
        balance_reserve(terminal_id=demo.shop.pk, amount=Decimal("0.07"), reference=f"r{i}")
        balance_credit(
            terminal_id=demo.shop.pk, amount=Decimal("0.07"), description="t", reference=f"c{i}"
        )
    balance = Balance.objects.get(terminal=demo.shop)
    assert balance.frozen == Decimal("21.00")
    assert ledger_check() == []
