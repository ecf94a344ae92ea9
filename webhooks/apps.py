from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = _("Webhooks")

    def ready(self):
        from core import metrics

        from .gauges import deliveries_due_count, deliveries_oldest_due_seconds

        metrics.gauge_at_scrape(
            "paymentsvc_webhook_deliveries_due",
            "Webhook deliveries whose next attempt is due now and not yet made.",
            deliveries_due_count,
        )
        metrics.gauge_at_scrape(
            "paymentsvc_webhook_deliveries_oldest_due_seconds",
            "Seconds the longest-waiting due webhook delivery has waited (0: none due).",
            deliveries_oldest_due_seconds,
        )
