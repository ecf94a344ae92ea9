from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo data set and banner: the one app that may import every other."""

    name = "demo"
    verbose_name = "Demo data"
