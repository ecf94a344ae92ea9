from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TradersConfig(AppConfig):
    name = "traders"
    verbose_name = _("Traders")

    def ready(self):
        from core import memo

        from .live import connect
        from .models import Device

        connect()
        memo.watch(Device)
