"""Small pieces the admin's pages share."""

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html


def short_id(value) -> str:
    """The first eight characters of a UUID: enough to tell rows apart on one screen;
    the full id is in the link's title and on the detail page."""
    text = str(value)
    return format_html('<span title="{}" style="font-family:monospace">{}…</span>', text, text[:8])


def operator_time(value) -> str:
    """A moment as operators read it: in the active zone (the operators' zone on every
    admin page), with the zone named, never an ISO string with +00:00."""
    if value is None:
        return "-"
    return date_format(timezone.localtime(value), "DATETIME_FORMAT")


class ReadOnlyPageMixin:
    """A detail page whose every field is read-only offers no Save buttons: changes go
    through the page's own action buttons."""

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "show_save": False,
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
            "show_delete": False,
        }
        return super().change_view(request, object_id, form_url, extra_context)
