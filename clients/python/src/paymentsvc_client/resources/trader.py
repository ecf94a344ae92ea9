"""A trader's orders and their receipts; the trader itself, its requisites and their
switch, its statistics."""

from __future__ import annotations

from typing import Any

from .._core import Call
from ..models import Receipt, Trader, TraderOrder, TraderRequisite, TraderStats
from ._base import Resource, _filters, _id, _paged

_TRADER_ORDERS = _paged("/api/v1/trader/orders", TraderOrder, "orders")


class TraderOrders(Resource):
    def list(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        status: str | None = None,
        order_side: str | None = None,
    ):
        """One page of the orders on this trader's requisites."""
        return self._send(_TRADER_ORDERS(**_filters(locals())))

    def list_all(self, **filters: Any):
        return self._all(_TRADER_ORDERS, filters)

    def confirm(self, id: str) -> TraderOrder:
        return self._send(
            Call(
                "POST",
                f"/api/v1/trader/orders/{_id(id)}/confirm",
                unwrap="order",
                model=TraderOrder,
            )
        )

    def cancel(self, id: str) -> TraderOrder:
        return self._send(
            Call(
                "POST",
                f"/api/v1/trader/orders/{_id(id)}/cancel",
                unwrap="order",
                model=TraderOrder,
            )
        )

    def receipts(self, order_id: str) -> list[Receipt]:
        return self._send(
            Call(
                "GET",
                f"/api/v1/trader/orders/{_id(order_id)}/receipts",
                unwrap="receipts",
                model=Receipt,
                many=True,
            )
        )

    def receipt_content(self, order_id: str, receipt_id: str) -> bytes:
        return self._send(
            Call(
                "GET",
                f"/api/v1/trader/orders/{_id(order_id)}/receipts/{_id(receipt_id)}",
                raw=True,
            )
        )


class TraderAccount:
    """What `TraderClient` says about the trader itself (mixed into both clients)."""

    def me(self) -> Trader:
        """The trader this key belongs to (its `id` is what settlements name)."""
        return self._call(Call("GET", "/api/v1/trader/me", unwrap="trader", model=Trader))

    def requisites(self) -> list[TraderRequisite]:
        """Every requisite of the trader with its limits and today's figures."""
        return self._call(
            Call(
                "GET",
                "/api/v1/trader/requisites",
                unwrap="requisites",
                model=TraderRequisite,
                many=True,
            )
        )

    def _switch(self, requisite_id: str, action: str) -> TraderRequisite:
        return self._call(
            Call(
                "POST",
                f"/api/v1/trader/requisites/{_id(requisite_id)}/{action}",
                unwrap="requisite",
                model=TraderRequisite,
            )
        )

    def enable_requisite(self, requisite_id: str) -> TraderRequisite:
        """Switch it on; ConflictError (`disabled_by_operator`) when an operator
        switched it off, NotFoundError for another trader's."""
        return self._switch(requisite_id, "enable")

    def disable_requisite(self, requisite_id: str) -> TraderRequisite:
        return self._switch(requisite_id, "disable")

    def stats(self, period: str | None = None) -> TraderStats:
        """Orders, completed, conversion, turnover and reward over `24h`, `7d` or `30d`."""
        params = {"period": str(period)} if period is not None else None
        return self._call(
            Call("GET", "/api/v1/trader/stats", params=params, unwrap="stats", model=TraderStats)
        )
