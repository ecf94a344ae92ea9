from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TradersConfig(AppConfig):
    name = "traders"
    verbose_name = _("Traders")

    def ready(self):
        from .live import connect

        connect()
