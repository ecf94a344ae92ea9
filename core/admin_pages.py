"""Small pieces the admin's pages share."""

import re
import uuid
from decimal import Decimal

from django.db.models import Q
from django.utils import timezone
from django.utils.formats import date_format, number_format
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


def operator_money(value) -> str:
    """An amount as operators read it, in the active language's format: two decimals,
    thousands grouped (in Russian `7 350,00`, a no-break space so it never wraps)."""
    return number_format(Decimal(value or 0), decimal_pos=2, force_grouping=True)


def operator_share(value) -> str:
    """A percentage with one decimal (`75,0`)."""
    return number_format(Decimal(value or 0), decimal_pos=1, force_grouping=True)


def operator_count(value) -> str:
    """A whole number with grouped thousands."""
    return number_format(int(value or 0), force_grouping=True)


_HEX_PREFIX = re.compile(r"^[0-9a-f-]{8,36}$")


def uuid_prefix(term: str, field: str = "id") -> Q | None:
    """An id's first characters (8 or more, as the lists show them, "…" allowed) as
    the range of UUIDs that start with them."""
    text = term.strip().rstrip("…").lower()
    if not _HEX_PREFIX.match(text):
        return None
    digits = text.replace("-", "")
    if len(digits) < 8 or len(digits) > 32:
        return None
    low, high = uuid.UUID(digits.ljust(32, "0")), uuid.UUID(digits.ljust(32, "f"))
    return Q(**{f"{field}__gte": low, f"{field}__lte": high})


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
