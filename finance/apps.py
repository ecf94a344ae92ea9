from django.apps import AppConfig


class FinanceConfig(AppConfig):
    name = "finance"

    def ready(self):
        from paymentsvc.auth import register_key_lookup

        from .selectors import api_key_for_digest

        register_key_lookup("terminal", api_key_for_digest)
