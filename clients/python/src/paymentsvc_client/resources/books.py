"""The books: a merchant's withdrawals and terminal, a trader's balance and ledger."""

from __future__ import annotations

from typing import Any

from .._core import Call
from ..models import Bank, Terminal, TraderBalance, TraderTransaction, Withdrawal
from ._base import Amount, Resource, _filters, _id, _paged

_WITHDRAWALS = _paged("/api/v1/finance/withdrawals", Withdrawal, "withdrawals")
_TRADER_TRANSACTIONS = _paged("/api/v1/trader/transactions", TraderTransaction, "transactions")


class Withdrawals(Resource):
    def create(
        self,
        *,
        amount: Amount,
        destination: str,
        comment: str | None = None,
        idempotency_key: str | None = None,
    ) -> Withdrawal:
        """Ask for a withdrawal: frozen at once, awaiting an operator's approval
        (InsufficientFunds-style 402 when `available` does not cover it)."""
        body: dict[str, Any] = {"amount": str(amount), "destination": destination}
        if comment is not None:
            body["comment"] = comment
        return self._send(
            Call(
                "POST",
                "/api/v1/finance/withdrawals",
                json=body,
                unwrap="withdrawal",
                model=Withdrawal,
                replayable=True,
                idempotency_key=idempotency_key,
            )
        )

    def get(self, id: str) -> Withdrawal:
        return self._send(
            Call(
                "GET",
                f"/api/v1/finance/withdrawals/{_id(id)}",
                unwrap="withdrawal",
                model=Withdrawal,
            )
        )

    def list(self, *, page: int | None = None, size: int | None = None):
        return self._send(_WITHDRAWALS(**_filters(locals())))

    def list_all(self, **filters: Any):
        return self._all(_WITHDRAWALS, filters)


class MerchantBooks:
    """Mixed into the merchant's clients: `client.terminal()`."""

    def terminal(self) -> Terminal:
        """The terminal this key belongs to (its `id` is what settlements name)."""
        return self._call(Call("GET", "/api/v1/terminal", unwrap="terminal", model=Terminal))

    def banks(self) -> list[Bank]:
        """The banks behind the terminal's enabled methods, for `customer_bank`."""
        return self._call(Call("GET", "/api/v1/banks", unwrap="banks", model=Bank))


class TraderBooks:
    """Mixed into the trader's clients: `.balance()`, `.transactions(...)`."""

    def balance(self) -> TraderBalance:
        return self._call(
            Call("GET", "/api/v1/trader/balance", unwrap="balance", model=TraderBalance)
        )

    def transactions(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        transaction_type: str | None = None,
        order_id: str | None = None,
    ):
        """One page of the trader's ledger, newest first."""
        filters = {k: v for k, v in locals().items() if k != "self"}
        return self._call(_TRADER_TRANSACTIONS(**filters))

    def transactions_all(self, **filters: Any):
        return self._paginate(lambda page: _TRADER_TRANSACTIONS(page=page, **filters))
