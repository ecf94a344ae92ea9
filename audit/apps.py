"""The append-only audit log: who did what, when and from where. At the bottom beside
`core`; every app may write to it, it imports no app."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = _("Audit")

    def ready(self):
        from . import signals

        signals.connect()
