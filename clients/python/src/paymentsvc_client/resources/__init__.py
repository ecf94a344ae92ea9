"""One method per endpoint, grouped Stripe-style (`client.orders.create(...)`).

A method only describes its call; the client it belongs to sends it, so the same
classes serve `Client` (results) and `AsyncClient` (awaitables)."""

from ._base import Amount, Resource
from ._base import _filters as _filters
from ._base import _id as _id
from ._base import _paged as _paged
from .device import DeviceNotifications, heartbeat_call
from .disputes import _DISPUTES as _DISPUTES
from .disputes import Disputes
from .events import _DELIVERIES as _DELIVERIES
from .events import _EVENTS as _EVENTS
from .events import Deliveries, Events, Webhooks
from .finance import _TRANSACTIONS as _TRANSACTIONS
from .finance import Finance
from .form import _FORM_SESSIONS as _FORM_SESSIONS
from .form import Form
from .operations import OPERATIONS, Operation
from .orders import _ORDERS as _ORDERS
from .orders import Orders
from .sandbox import Sandbox
from .trader import _TRADER_ORDERS as _TRADER_ORDERS
from .trader import TraderAccount, TraderOrders

__all__ = [
    "OPERATIONS",
    "Amount",
    "Deliveries",
    "DeviceNotifications",
    "Disputes",
    "Events",
    "Finance",
    "Form",
    "Operation",
    "Orders",
    "Resource",
    "Sandbox",
    "TraderAccount",
    "TraderOrders",
    "Webhooks",
    "heartbeat_call",
]
