import os

from django.conf import settings
from django.core.management.base import BaseCommand

from .seed_demo import WEBHOOK_SECRET


class Command(BaseCommand):
    help = "Print where the running demo lives and its keys."

    def handle(self, *args, **options):
        base = settings.PUBLIC_BASE_URL
        host = os.environ.get("APP_HOST", "127.0.0.1")
        reach = (
            "this machine only (RUN_HOST=0.0.0.0 make run opens it to the network)"
            if host in ("127.0.0.1", "localhost", "::1")
            else f"every address of {host}: anyone who can reach this machine can sign in"
        )
        warnings = [
            "DEBUG on" if settings.DEBUG else None,
            "demo passwords and keys, printed below",
            "webhooks may go to private networks"
            if settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS
            else None,
        ]
        self.stdout.write(
            f"""
Payment orders service: A DEMO, NOT FOR REAL MONEY
  {"; ".join(w for w in warnings if w)}.
  Listening on  {reach}
  Production runs with docs/deploy.md's settings, never with make run.
  API docs      {base}/api/docs/
  OpenAPI       {base}/api/schema/
  Admin         {base}/admin/   (operator / operator-demo-password)
  Health        {base}/healthz  {base}/readyz
Merchant keys   demo-shop-key (Demo Shop, h2h, 100000.00)
                demo-form-key (Form Shop, order_with_form)
                demo-closed-key (Closed Shop, form not activated)
                demo-sandbox-key (Sandbox Shop, test mode: docs/sandbox.md)
Trader keys     demo-trader-1-key demo-trader-2-key demo-trader-3-key
                demo-sandbox-trader-key (sandbox)
Webhook secret  {WEBHOOK_SECRET} (every demo terminal)
Try:  curl -H 'X-API-Key: demo-shop-key' {base}/api/v1/finance/balance
"""
        )
