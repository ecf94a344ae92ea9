from pathlib import Path

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


def settings_dirs() -> list:
    """The local directories the settings point at: made when Django starts (here,
    not at import, so importing settings never touches the disk)."""
    dirs = [settings.VAR_DIR, settings.STATIC_ROOT]
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3" and database["NAME"] != ":memory:":
        dirs.append(Path(database["NAME"]).parent)
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    dirs += [options[k] for k in ("data_folder_in", "processed_folder") if k in options]
    return dirs


class CoreConfig(AppConfig):
    name = "core"
    # The label the idempotency table and its migrations were made under, kept so a
    # deployed database needs no change.
    label = "paymentsvc"
    verbose_name = _("Service infrastructure")

    def ready(self):
        from . import (
            choice_dumpers,
            connection_checks,
            schema,  # noqa: F401 - registers the OpenAPI authentication extensions
            timestamps,
        )

        choice_dumpers.register()
        connection_checks.connect()
        timestamps.connect()
        from .permissions import watch_permissions

        watch_permissions()

        for directory in settings_dirs():
            Path(directory).mkdir(parents=True, exist_ok=True)
