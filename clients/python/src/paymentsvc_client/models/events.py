"""Events, their webhook deliveries and the terminal's webhook settings."""

from datetime import datetime

from ._base import Model
from .disputes import Dispute
from .enums import Actor, DeliveryStatus, EventType
from .orders import Order


class EventData(Model):
    order: Order | None
    dispute: Dispute | None


class Event(Model):
    """A stored event, and exactly the body of the webhook that carried it."""

    id: str
    type: EventType
    created_at: datetime
    sequence: int
    livemode: bool | None
    actor: Actor | None
    data: EventData


class DeliveryAttempt(Model):
    attempted_at: datetime
    response_status: int | None
    duration_ms: int | None
    error: str | None
    response_excerpt: str | None


class Delivery(Model):
    # A string, as every record's id (an older server sent a number).
    id: int | str
    event_id: str
    event_type: EventType
    order_id: str | None
    url: str
    status: DeliveryStatus
    attempts_count: int
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    last_response_status: int | None
    attempts: list[DeliveryAttempt] | None


class WebhookSecret(Model):
    """The answer to a rotation as sent: `{success, message, secret}`."""

    success: bool
    message: str
    secret: str


class WebhookEndpoints(Model):
    """The terminal's webhook URLs; the whole answer `{success, message, urls}` as sent."""

    success: bool
    message: str
    urls: list[str]
