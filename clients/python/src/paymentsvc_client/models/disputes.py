"""Disputes on orders."""

from datetime import datetime
from decimal import Decimal

from ._base import Model
from .enums import DisputeResolution


class Dispute(Model):
    dispute_id: str
    order_id: str
    client_order_id: str
    amount: Decimal
    currency: str
    processed: bool
    resolution: DisputeResolution | None
    created_at: datetime


class DisputeCreated(Model):
    order_id: str
    dispute_id: str
    dispute_files: list[str]
