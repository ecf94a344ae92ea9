"""Disputes with their evidence files."""

from __future__ import annotations

from typing import Any

from .._core import Call, upload_files
from ..models import Dispute, DisputeCreated
from ._base import Amount, Resource, _filters, _paged

_DISPUTES = _paged("/api/v1/disputes/search", Dispute, "data")


class Disputes(Resource):
    def create(
        self,
        order_id: str,
        amount: Amount,
        files: list[tuple[str, bytes] | tuple[str, bytes, str]] | None = None,
        *,
        idempotency_key: str | None = None,
    ) -> DisputeCreated:
        """POST /api/v1/disputes/create with evidence files as (name, bytes) pairs."""
        return self._send(
            Call(
                "POST",
                "/api/v1/disputes/create",
                data={"order_id": order_id, "amount": amount},
                files=upload_files(files) or [],
                model=DisputeCreated,
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
        dispute_id: str | None = None,
        processed: bool | None = None,
        start_date: Any = None,
        end_date: Any = None,
    ):
        return self._send(_DISPUTES(**_filters(locals())))

    def search_all(self, **filters: Any):
        return self._all(_DISPUTES, filters)
