"""Hosted payment-form sessions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core import Call, body
from ..models import FormSession, FormSessionItem
from ._base import Amount, Resource, _filters, _paged

_FORM_SESSIONS = _paged("/api/v1/form/search", FormSessionItem)


class Form(Resource):
    def create(
        self,
        *,
        client_order_id: str | None = None,
        amount: Amount | None = None,
        order_side: str | None = None,
        button_name: str | None = None,
        user_id: str | None = None,
        unique_amount: bool | None = None,
        customer_bank: str | None = None,
        redirect_url: str | None = None,
        support_url: str | None = None,
        return_url: str | None = None,
        order_data: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> FormSession:
        """POST /api/v1/form/create: a hosted payment-form session (its `form_data`).

        The body's nested `order_data` is given either whole, as the API names it
        (`order_data={"client_order_id": ..., "amount": ...}`), or field by field as
        keyword arguments of their own (`client_order_id=..., amount=...`); not both
        for one field. `order_side` defaults to "Buy"."""
        fields = body(
            client_order_id=client_order_id,
            order_side=order_side,
            amount=amount,
            button_name=button_name,
            user_id=user_id,
            unique_amount=unique_amount,
            customer_bank=customer_bank,
        )
        given = dict(order_data or {})
        twice = sorted(set(given) & set(fields))
        if twice:
            raise TypeError(f"form.create() got {', '.join(twice)} both in order_data and alone")
        order_data = {"order_side": "Buy", **given, **fields}
        missing = [name for name in ("client_order_id", "amount") if order_data.get(name) is None]
        if missing:
            raise TypeError(f"form.create() needs {' and '.join(missing)} (alone or in order_data)")
        payload = body(
            order_data=order_data,
            redirect_url=redirect_url,
            support_url=support_url,
            return_url=return_url,
        )
        return self._send(
            Call(
                "POST",
                "/api/v1/form/create",
                json=payload,
                unwrap="form_data",
                model=FormSession,
                replayable=True,
                idempotency_key=idempotency_key,
            )
        )

    def search(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        order_id: str | None = None,
        client_order_id: str | None = None,
        terminal_id: str | None = None,
        session_id: str | None = None,
        state: str | None = None,
        currency: str | None = None,
    ):
        return self._send(_FORM_SESSIONS(**_filters(locals())))

    def search_all(self, **filters: Any):
        return self._all(_FORM_SESSIONS, filters)
