"""Where each API operation lives in this client, for the schema check."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import (
    Balance,
    Bank,
    Delivery,
    DeviceNotification,
    DeviceState,
    Dispute,
    DisputeCreated,
    Event,
    FormSession,
    FormSessionItem,
    Model,
    Order,
    OrderAvailability,
    PaymentMethod,
    Ping,
    Receipt,
    Terminal,
    Trader,
    TraderBalance,
    TraderOrder,
    TraderRequisite,
    TraderStats,
    TraderTransaction,
    Transaction,
    WebhookEndpoints,
    WebhookSecret,
    Withdrawal,
)


@dataclass(frozen=True)
class Operation:
    """Where an API operation lives in this client, for the schema check."""

    method: str
    path: str
    # "orders.create" on Client, "trader:orders.confirm" on TraderClient,
    # "device:notifications.send" on DeviceClient
    call: str
    model: type[Model] | None
    unwrap: str | None = None
    page: bool = False
    unwrap_optional: bool = False
    # Query parameter -> keyword of the method, where they differ.
    aliases: tuple[tuple[str, str], ...] = ()


OPERATIONS: dict[str, Operation] = {
    "order_create": Operation(
        "post", "/api/v1/order/", "orders.create", Order, unwrap="order", unwrap_optional=True
    ),
    "order_list": Operation(
        "get", "/api/v1/order/", "orders.list", Order, unwrap="orders", page=True
    ),
    "order_get": Operation("get", "/api/v1/order/{order_id}", "orders.get", Order, "order"),
    "order_cancel": Operation(
        "post", "/api/v1/order/{order_id}/cancel", "orders.cancel", Order, "order"
    ),
    "order_search_by_client_order_id": Operation(
        "get",
        "/api/v1/order/search-by-client-order-id",
        "orders.search_by_client_order_id",
        Order,
        unwrap="orders",
        page=True,
        aliases=(("id", "client_order_id"),),
    ),
    "form_create": Operation(
        "post", "/api/v1/form/create", "form.create", FormSession, unwrap="form_data"
    ),
    "form_search": Operation(
        "get", "/api/v1/form/search", "form.search", FormSessionItem, page=True
    ),
    "dispute_create": Operation(
        "post", "/api/v1/disputes/create", "disputes.create", DisputeCreated
    ),
    "dispute_search": Operation(
        "get", "/api/v1/disputes/search", "disputes.search", Dispute, unwrap="data", page=True
    ),
    "finance_balance": Operation(
        "get", "/api/v1/finance/balance", "finance.balance", Balance, unwrap="deposit"
    ),
    "finance_transactions": Operation(
        "get", "/api/v1/finance/transactions", "finance.transactions", Transaction, page=True
    ),
    "finance_payment_methods": Operation(
        "get",
        "/api/v1/finance/payment_methods",
        "finance.payment_methods",
        PaymentMethod,
        unwrap="payment_methods",
    ),
    "ping": Operation("get", "/api/v1/ping", "ping", Ping),
    "trader_order_list": Operation(
        "get",
        "/api/v1/trader/orders",
        "trader:orders.list",
        TraderOrder,
        unwrap="orders",
        page=True,
    ),
    "trader_order_confirm": Operation(
        "post",
        "/api/v1/trader/orders/{order_id}/confirm",
        "trader:orders.confirm",
        TraderOrder,
        "order",
    ),
    "trader_order_cancel": Operation(
        "post",
        "/api/v1/trader/orders/{order_id}/cancel",
        "trader:orders.cancel",
        TraderOrder,
        "order",
    ),
    # Events, deliveries, sandbox, receipts (docs/webhooks.md, docs/sandbox.md,
    # docs/form.md): described from the docs; the schema check covers them as
    # soon as the service documents them.
    "event_list": Operation(
        "get", "/api/v1/events", "events.list", Event, unwrap="events", page=True
    ),
    "event_get": Operation("get", "/api/v1/events/{event_id}", "events.get", Event, "event"),
    "delivery_list": Operation(
        "get",
        "/api/v1/webhooks/deliveries",
        "deliveries.list",
        Delivery,
        unwrap="deliveries",
        page=True,
    ),
    "delivery_get": Operation(
        "get",
        "/api/v1/webhooks/deliveries/{delivery_id}",
        "deliveries.get",
        Delivery,
        "delivery",
    ),
    "delivery_resend": Operation(
        "post",
        "/api/v1/webhooks/deliveries/{delivery_id}/resend",
        "deliveries.resend",
        Delivery,
        "delivery",
    ),
    "webhook_endpoints_get": Operation(
        "get", "/api/v1/webhooks/endpoints", "webhooks.endpoints", WebhookEndpoints
    ),
    "webhook_endpoints_put": Operation(
        "put", "/api/v1/webhooks/endpoints", "webhooks.set_endpoints", WebhookEndpoints
    ),
    "webhook_secret_rotate": Operation(
        "post", "/api/v1/webhooks/secret/rotate", "webhooks.rotate_secret", WebhookSecret
    ),
    "sandbox_simulate": Operation(
        "post", "/api/v1/sandbox/order/{order_id}/simulate", "sandbox.simulate", Order, "order"
    ),
    "trader_order_receipts": Operation(
        "get",
        "/api/v1/trader/orders/{order_id}/receipts",
        "trader:orders.receipts",
        Receipt,
        unwrap="receipts",
    ),
    "trader_order_receipt": Operation(
        "get",
        "/api/v1/trader/orders/{order_id}/receipts/{receipt_id}",
        "trader:orders.receipt_content",
        None,
    ),
    "terminal": Operation("get", "/api/v1/terminal", "terminal", Terminal, "terminal"),
    "banks": Operation("get", "/api/v1/banks", "banks", Bank, "banks"),
    "order_availability": Operation(
        "post", "/api/v1/order/availability", "orders.availability", OrderAvailability
    ),
    "withdrawal_create": Operation(
        "post", "/api/v1/finance/withdrawals", "withdrawals.create", Withdrawal, "withdrawal"
    ),
    "withdrawal_list": Operation(
        "get",
        "/api/v1/finance/withdrawals",
        "withdrawals.list",
        Withdrawal,
        unwrap="withdrawals",
        page=True,
    ),
    "withdrawal_get": Operation(
        "get",
        "/api/v1/finance/withdrawals/{withdrawal_id}",
        "withdrawals.get",
        Withdrawal,
        "withdrawal",
    ),
    "trader_balance": Operation(
        "get", "/api/v1/trader/balance", "trader:balance", TraderBalance, "balance"
    ),
    "trader_transactions": Operation(
        "get",
        "/api/v1/trader/transactions",
        "trader:transactions",
        TraderTransaction,
        unwrap="transactions",
        page=True,
    ),
    "trader_me": Operation("get", "/api/v1/trader/me", "trader:me", Trader, "trader"),
    "trader_requisite_list": Operation(
        "get", "/api/v1/trader/requisites", "trader:requisites", TraderRequisite, "requisites"
    ),
    "trader_requisite_enable": Operation(
        "post",
        "/api/v1/trader/requisites/{requisite_id}/enable",
        "trader:enable_requisite",
        TraderRequisite,
        "requisite",
    ),
    "trader_requisite_disable": Operation(
        "post",
        "/api/v1/trader/requisites/{requisite_id}/disable",
        "trader:disable_requisite",
        TraderRequisite,
        "requisite",
    ),
    "trader_stats": Operation("get", "/api/v1/trader/stats", "trader:stats", TraderStats, "stats"),
    "device_notification_send": Operation(
        "post",
        "/api/v1/device/notifications",
        "device:notifications.send",
        DeviceNotification,
        "notification",
    ),
    "device_heartbeat": Operation(
        "post", "/api/v1/device/heartbeat", "device:heartbeat", DeviceState, "device"
    ),
}
