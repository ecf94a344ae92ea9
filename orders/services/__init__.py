"""Order services, one module per concern; the public names are re-exported here so
callers keep writing `from orders.services import order_create`."""

from .antifraud import antifraud_cap, antifraud_check, pending_count_for_user
from .events import order_event_record
from .lifecycle import (
    OrderNotPending,
    order_cancel,
    order_complete_by_dispute,
    order_confirm,
    order_expire,
    order_expire_due,
    order_expire_now,
)
from .placement import OrderAvailability, order_availability, order_create
from .pricing import LIMITS_MESSAGE, fee_range_for, method_offered_as_button, method_resolve
from .request_rules import CUSTOMER_BANKS, customer_bank_normalize, order_validate_request
from .sandbox import (
    SandboxAction,
    order_simulate,
    sandbox_act,
    sandbox_act_due,
    sandbox_action_for,
)
from .trader_keys import trader_key_issue

__all__ = [
    "CUSTOMER_BANKS",
    "LIMITS_MESSAGE",
    "OrderAvailability",
    "OrderNotPending",
    "SandboxAction",
    "antifraud_cap",
    "antifraud_check",
    "customer_bank_normalize",
    "fee_range_for",
    "method_offered_as_button",
    "method_resolve",
    "order_availability",
    "order_cancel",
    "order_complete_by_dispute",
    "order_confirm",
    "order_create",
    "order_event_record",
    "order_expire",
    "order_expire_due",
    "order_expire_now",
    "order_simulate",
    "order_validate_request",
    "pending_count_for_user",
    "sandbox_act",
    "sandbox_act_due",
    "sandbox_action_for",
    "trader_key_issue",
]
