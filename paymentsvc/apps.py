from django.apps import AppConfig


class PaymentsvcConfig(AppConfig):
    name = "paymentsvc"
    verbose_name = "Service infrastructure"

    def ready(self):
        from . import schema  # noqa: F401 - registers the OpenAPI authentication extensions
