from django.apps import AppConfig


class OrdersConfig(AppConfig):
    name = "orders"

    def ready(self):
        from paymentsvc.auth import register_key_lookup

        from .trader_keys import trader_key_for_digest

        register_key_lookup("trader", trader_key_for_digest)
