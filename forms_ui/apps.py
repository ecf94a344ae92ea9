from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FormsUiConfig(AppConfig):
    name = "forms_ui"
    verbose_name = _("Payment form")

    def ready(self):
        from orders.hooks import register_form_session_factory

        from .services import session_for_order

        register_form_session_factory(session_for_order)
