from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FinanceConfig(AppConfig):
    name = "finance"
    verbose_name = _("Finance")

    def ready(self):
        from core import memo
        from core.auth import register_key_lookup

        from .models import ApiKey, Client, FeeRange, PaymentMethod, Terminal, TerminalMethod
        from .selectors import api_key_for_digest

        register_key_lookup("terminal", api_key_for_digest)
        # Kept per process between requests (keys with their terminals, methods with
        # their fee ranges): any change to these makes every process read afresh.
        memo.watch(ApiKey, Client, Terminal, PaymentMethod, FeeRange, TerminalMethod)
