"""The deposit's balance, its transactions and the payment methods."""

from __future__ import annotations

from typing import Any

from .._core import Call, query
from ..models import Balance, PaymentMethod, Transaction
from ._base import Resource, _filters, _paged

_TRANSACTIONS = _paged("/api/v1/finance/transactions", Transaction)


class Finance(Resource):
    def balance(self) -> Balance:
        return self._send(Call("GET", "/api/v1/finance/balance", unwrap="deposit", model=Balance))

    def transactions(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        transaction_type: str | None = None,
        start_date: Any = None,
        end_date: Any = None,
    ):
        return self._send(_TRANSACTIONS(**_filters(locals())))

    def transactions_all(self, **filters: Any):
        return self._all(_TRANSACTIONS, filters)

    def payment_methods(
        self, *, active: bool | None = None, method_type: str | list[str] | None = None
    ) -> list[PaymentMethod]:
        if isinstance(method_type, str):
            method_type = [method_type]
        return self._send(
            Call(
                "GET",
                "/api/v1/finance/payment_methods",
                params=query(active=active, method_type=method_type),
                unwrap="payment_methods",
                model=PaymentMethod,
                many=True,
            )
        )
