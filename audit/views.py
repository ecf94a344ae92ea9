"""`/admin/audit/`: the audit log for operators, filtered, paged, and as CSV."""

from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.core.paginator import Paginator
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from core.csv_stream import csv_lines, csv_response

from .models import ACTION_LABELS, ActorKind
from .selectors import FILTERS, audit_entries
from .services import audit_record

PAGE_SIZE = 50
CSV_COLUMNS = [
    ("time", lambda e: e.created_at),
    ("actor_kind", lambda e: e.actor_kind),
    ("actor_id", lambda e: e.actor_id),
    ("client_address", lambda e: e.client_address),
    ("action", lambda e: e.action),
    ("object_type", lambda e: e.object_type),
    ("object_id", lambda e: e.object_id),
    ("changes", lambda e: e.changes_json),
]


def _export(request, queryset):
    audit_record(
        actor_kind=ActorKind.OPERATOR,
        actor_id=request.user.get_username(),
        action="audit.export",
        object_type="audit.auditentry",
        changes={"filters": {k: request.GET[k] for k in FILTERS if request.GET.get(k)}},
        request=request,
    )
    rows = csv_lines(CSV_COLUMNS, queryset.iterator(chunk_size=2000))
    return csv_response(rows, name="audit")


@staff_member_required
def audit_log(request):
    queryset, errors = audit_entries(request.GET)
    if request.GET.get("format") == "csv" and not errors:
        return _export(request, queryset)
    page = Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    query.pop("format", None)
    context = {
        **admin.site.each_context(request),
        "title": _("Audit log"),
        "page": page,
        "filters": {name: request.GET.get(name, "") for name in FILTERS},
        "actor_kinds": ActorKind.choices,
        "actions": [(code, str(label)) for code, label in ACTION_LABELS.items()],
        "errors": errors,
        "query": query.urlencode(),
    }
    return TemplateResponse(request, "audit/log.html", context)
