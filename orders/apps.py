from django.apps import AppConfig


class OrdersConfig(AppConfig):
    name = "orders"

    def ready(self):
        from core import metrics

        from .gauges import orders_overdue_count, orders_pending_count

        metrics.gauge_at_scrape(
            "paymentsvc_orders_pending", "Orders Pending now.", orders_pending_count
        )
        metrics.gauge_at_scrape(
            "paymentsvc_orders_pending_overdue",
            "Orders still Pending after their expiry (the expiry sweep is behind).",
            orders_overdue_count,
        )
        from core import memo
        from core.auth import register_key_lookup

        from .key_lookup import trader_key_for_digest
        from .models import Trader, TraderApiKey

        register_key_lookup("trader", trader_key_for_digest)
        memo.watch(Trader, TraderApiKey)

        from finance.ledger import EXTRA_CHECKS, FROZEN_SOURCES

        from .books import completed_orders_add_up, pending_buys_frozen

        if pending_buys_frozen not in FROZEN_SOURCES:
            FROZEN_SOURCES.append(pending_buys_frozen)
        if completed_orders_add_up not in EXTRA_CHECKS:
            EXTRA_CHECKS.append(completed_orders_add_up)
