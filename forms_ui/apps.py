from django.apps import AppConfig


class FormsUiConfig(AppConfig):
    name = "forms_ui"

    def ready(self):
        from orders.hooks import register_form_session_factory

        from .services import session_for_order

        register_form_session_factory(session_for_order)
