from django.core.management.base import BaseCommand

from orders.services import order_expire_due


class Command(BaseCommand):
    help = "Expire Pending orders past expires_at (the beat task does this every few seconds)."

    def handle(self, *args, **options):
        total = 0
        while True:
            n = order_expire_due()
            total += n
            if n == 0:
                break
        self.stdout.write(f"expired {total} orders")
