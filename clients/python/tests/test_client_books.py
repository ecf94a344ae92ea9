"""The books through the client, against the live server with the demo data: a
merchant's terminal and withdrawals, a trader's balance, ledger and amount received."""

from decimal import Decimal

import pytest
from paymentsvc_client import (
    Client,
    InsufficientFundsError,
    NotFoundError,
    OrderSide,
    TraderClient,
    ValidationError,
)
from paymentsvc_client.models import (
    Terminal,
    TraderBalance,
    TraderTransactionType,
    Withdrawal,
    WithdrawalStatus,
)

from .conftest import TRADER_KEYS


def test_the_merchant_reads_its_terminal_and_asks_for_withdrawals(client, live):
    terminal = client.terminal()
    assert isinstance(terminal, Terminal)
    assert (terminal.name, terminal.livemode, terminal.currency) == ("Demo Shop", True, "RUB")

    withdrawal = client.withdrawals.create(
        amount=Decimal("120.50"), destination="IBAN RU00", comment="Weekly", idempotency_key="w-1"
    )
    assert isinstance(withdrawal, Withdrawal)
    assert withdrawal.status is WithdrawalStatus.AWAITING_APPROVAL
    assert withdrawal.amount == Decimal("120.50") and withdrawal.decided_at is None
    again = client.withdrawals.create(
        amount=Decimal("120.50"), destination="IBAN RU00", comment="Weekly", idempotency_key="w-1"
    )
    assert again.id == withdrawal.id
    assert client.withdrawals.get(withdrawal.id).destination == "IBAN RU00"
    page = client.withdrawals.list()
    assert [w.id for w in page.items] == [withdrawal.id]
    assert [w.id for w in client.withdrawals.list_all()] == [withdrawal.id]
    assert client.finance.balance().frozen == Decimal("120.50")

    with pytest.raises(InsufficientFundsError):
        client.withdrawals.create(amount=Decimal("100000"), destination="too much")
    with pytest.raises(ValidationError):
        client.withdrawals.create(amount="1.234", destination="card")
    with pytest.raises(NotFoundError):
        client.withdrawals.get("00000000-0000-0000-0000-000000000000")
    with Client(live, "demo-sandbox-key") as other, pytest.raises(NotFoundError):
        other.withdrawals.get(withdrawal.id)


def test_a_trader_reads_its_balance_and_ledger_and_confirms_another_amount(
    client, method_ids, live
):
    order = client.orders.create(
        client_order_id="sdk-books",
        order_side=OrderSide.BUY,
        payment_method_id=method_ids["Sberbank SBP"],
        amount=Decimal("530.00"),
    )
    traders = [TraderClient(live, key) for key in TRADER_KEYS]
    try:
        (trader,) = [
            t for t in traders if order.id in {o.id for o in t.orders.list_all(status="Pending")}
        ]
        balance = trader.balance()
        assert isinstance(balance, TraderBalance)
        assert balance.frozen == Decimal("530.00")
        assert balance.total == Decimal("100000000.00")
        done = trader.orders.confirm(order.id, paid_amount=Decimal("600.00"))
        assert done.paid_amount == Decimal("600.00")
        # the trader pays 600.00 and earns 2.5 % of it, 15.00
        assert trader.balance().total == Decimal("99999415.00")
        page = trader.transactions(order_id=order.id)
        assert [(t.transaction_type, t.amount) for t in page.items] == [
            (TraderTransactionType.REWARD, Decimal("15.00")),
            (TraderTransactionType.ORDER_BUY, Decimal("600.00")),
        ]
        deposits = list(trader.transactions_all(transaction_type="deposit"))
        assert [t.description for t in deposits] == ["Initial deposit"]
        # 600.00 less the 5 % fee on it
        assert client.finance.balance().available == Decimal("100570.00")
    finally:
        for t in traders:
            t.close()
