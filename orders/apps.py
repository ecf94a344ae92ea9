from django.apps import AppConfig


class OrdersConfig(AppConfig):
    name = "orders"

    def ready(self):
        from paymentsvc.auth import register_key_lookup

        from .key_lookup import trader_key_for_digest

        register_key_lookup("trader", trader_key_for_digest)
