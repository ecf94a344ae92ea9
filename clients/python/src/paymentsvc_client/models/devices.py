"""What a trader's device hears back: a notification's outcome, its heartbeat."""

from datetime import datetime
from decimal import Decimal

from ._base import Model
from .enums import Direction, NotificationStatus


class NotificationParsed(Model):
    """What the service read from the notification (all None for no payment)."""

    amount: Decimal | None
    direction: Direction | None
    bank: str | None  # the bank's nspk_code


class DeviceNotification(Model):
    id: str  # the device's own id of the notification
    status: NotificationStatus
    parsed: NotificationParsed
    order_id: str | None


class DeviceState(Model):
    id: str
    name: str
    last_seen_at: datetime
