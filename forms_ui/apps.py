from django.apps import AppConfig


class FormsUiConfig(AppConfig):
    name = "forms_ui"
