from django.apps import AppConfig


class TradersConfig(AppConfig):
    name = "traders"
    verbose_name = "Traders"

    def ready(self):
        from .live import connect

        connect()
