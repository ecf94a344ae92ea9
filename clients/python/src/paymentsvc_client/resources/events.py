"""Events, their webhook deliveries and the terminal's webhook settings."""

from __future__ import annotations

from typing import Any

from .._core import Call
from ..models import Delivery, Event, WebhookEndpoints, WebhookSecret
from ._base import Resource, _filters, _id, _paged

_EVENTS = _paged("/api/v1/events", Event, "events")
_DELIVERIES = _paged("/api/v1/webhooks/deliveries", Delivery, "deliveries")


class Events(Resource):
    def list(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        type: str | None = None,
        order_id: str | None = None,
        created_after: Any = None,
        created_before: Any = None,
        starting_after: str | None = None,
        ending_before: str | None = None,
    ):
        """One page of the terminal's events, newest first; `order_id=` gives an
        order's history. `starting_after` / `ending_before` (an event id, instead of
        `page`): the page right after / right before that event; `Page.has_more` tells
        if more follow."""
        return self._send(_EVENTS(**_filters(locals())))

    def list_all(self, **filters: Any):
        return self._all(_EVENTS, filters)

    def get(self, id: str) -> Event:
        return self._send(Call("GET", f"/api/v1/events/{_id(id)}", unwrap="event", model=Event))


class Deliveries(Resource):
    def list(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        event_id: str | None = None,
        order_id: str | None = None,
        status: str | None = None,
        starting_after: int | None = None,
        ending_before: int | None = None,
    ):
        """One page of the terminal's deliveries, newest first; `starting_after` /
        `ending_before` (a delivery id) as for events."""
        return self._send(_DELIVERIES(**_filters(locals())))

    def list_all(self, **filters: Any):
        return self._all(_DELIVERIES, filters)

    def get(self, id: str) -> Delivery:
        return self._send(
            Call("GET", f"/api/v1/webhooks/deliveries/{_id(id)}", unwrap="delivery", model=Delivery)
        )

    def resend(self, id: str) -> Delivery:
        return self._send(
            Call(
                "POST",
                f"/api/v1/webhooks/deliveries/{_id(id)}/resend",
                unwrap="delivery",
                model=Delivery,
            )
        )


class Webhooks(Resource):
    def endpoints(self) -> WebhookEndpoints:
        return self._send(Call("GET", "/api/v1/webhooks/endpoints", model=WebhookEndpoints))

    def set_endpoints(self, urls: list[str]) -> WebhookEndpoints:
        return self._send(
            Call("PUT", "/api/v1/webhooks/endpoints", json={"urls": urls}, model=WebhookEndpoints)
        )

    def rotate_secret(self) -> WebhookSecret:
        """The new `whsec_` secret, shown this once; the old one signs for 24 h more."""
        return self._send(Call("POST", "/api/v1/webhooks/secret/rotate", model=WebhookSecret))
