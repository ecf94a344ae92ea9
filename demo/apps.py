from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DemoConfig(AppConfig):
    """The demo data set and banner: the one app that may import every other."""

    name = "demo"
    verbose_name = _("Demo data")
