from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SettlementsConfig(AppConfig):
    name = "settlements"
    verbose_name = _("Settlements")
