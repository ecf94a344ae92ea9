from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FormsUiConfig(AppConfig):
    name = "forms_ui"
    verbose_name = _("Payment form")
