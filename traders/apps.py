from django.apps import AppConfig


class TradersConfig(AppConfig):
    name = "traders"
    verbose_name = "Traders"
