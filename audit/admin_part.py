"""An object's part of the audit log, shown on its admin change page (every change
page: templates/admin/change_form.html), with a link to the whole log filtered to it."""

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from .selectors import entries_for


def audit_part(obj) -> SafeString:
    table = render_to_string("audit/entries.html", {"entries": entries_for(obj)})
    query = urlencode({"object_type": obj._meta.label_lower, "object_id": str(obj.pk)})
    link = format_html('<p><a href="{}?{}">{}</a></p>', reverse("audit-log"), query, _("Whole log"))
    return SafeString(table + link)
