from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OperatorsConfig(AppConfig):
    name = "operators"
    verbose_name = _("Operators")
