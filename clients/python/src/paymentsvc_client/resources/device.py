"""A trader's device: forwarding bank notifications and saying it is alive.

Both calls are safe to repeat: the service keeps one notification per (device, id)
and answers a repeat with `duplicate` and the first answer's order, so a send that
may have reached the service is retried like any idempotent call."""

from __future__ import annotations

from datetime import UTC, datetime

from .._core import Call, body
from ..models import DeviceNotification, DeviceState
from ._base import Resource


class DeviceNotifications(Resource):
    def send(
        self,
        id: str,
        source: str,
        text: str,
        title: str | None = "",
        received_at: datetime | None = None,
    ) -> DeviceNotification:
        """Forward one push or SMS as the phone received it (`received_at` defaults
        to now). The result's `status` says what happened: matched (its order was
        completed: `order_id`), unmatched, ambiguous, ignored or duplicate."""
        payload = body(
            id=id,
            source=source,
            title=title or "",
            text=text,
            received_at=received_at or datetime.now(UTC),
        )
        return self._send(
            Call(
                "POST",
                "/api/v1/device/notifications",
                json=payload,
                unwrap="notification",
                model=DeviceNotification,
                replayable=True,
            )
        )


def heartbeat_call() -> Call:
    return Call(
        "POST", "/api/v1/device/heartbeat", unwrap="device", model=DeviceState, replayable=True
    )
