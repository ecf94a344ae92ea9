"""Driving sandbox orders."""

from __future__ import annotations

from .._core import Call, body
from ..models import Order
from ._base import Amount, Resource, _id


class Sandbox(Resource):
    def simulate(self, order_id: str, action: str, *, paid_amount: Amount | None = None) -> Order:
        """Act on a sandbox order as its trader or its clock would: complete, cancel
        or expire."""
        return self._send(
            Call(
                "POST",
                f"/api/v1/sandbox/order/{_id(order_id)}/simulate",
                json=body(action=action, paid_amount=paid_amount),
                unwrap="order",
                model=Order,
            )
        )
