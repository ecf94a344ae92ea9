"""The audit log as operators filter it: by actor, object, action and time."""

from datetime import datetime, time

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from .models import ActorKind, AuditEntry

FILTERS = ("actor_kind", "actor_id", "object_type", "object_id", "action", "since", "until")


def _moment(text: str, *, end: bool) -> datetime | None:
    """A date or a date and time as typed in the filter, in the operator's zone; None
    when it is not one (well formed but impossible, such as 2026-02-30, included)."""
    try:
        moment = parse_datetime(text)
        if moment is None:
            day = parse_date(text)
            if day is None:
                return None
            moment = datetime.combine(day, time.max if end else time.min)
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment)
    except (ValueError, OverflowError):
        return None
    return moment


def audit_entries(params) -> tuple[QuerySet, list[str]]:
    """The entries `params` (a query dict) select, newest first, and what was not
    understood. An object id matches from its start, so a short id finds its object."""
    qs = AuditEntry.objects.all()
    errors = []
    get = {name: (params.get(name) or "").strip() for name in FILTERS}
    if get["actor_kind"]:
        if get["actor_kind"] in ActorKind.values:
            qs = qs.filter(actor_kind=get["actor_kind"])
        else:
            errors.append("actor_kind")
    if get["actor_id"]:
        qs = qs.filter(actor_id=get["actor_id"])
    if get["object_type"]:
        qs = qs.filter(object_type=get["object_type"].lower())
    if get["object_id"]:
        qs = qs.filter(object_id__startswith=get["object_id"])
    if get["action"]:
        qs = qs.filter(action=get["action"])
    for name, lookup, end in (
        ("since", "created_at__gte", False),
        ("until", "created_at__lte", True),
    ):
        if get[name]:
            moment = _moment(get[name], end=end)
            if moment is None:
                errors.append(name)
            else:
                qs = qs.filter(**{lookup: moment})
    return qs.order_by("-created_at", "-id"), errors


# Objects that act (by the actor kind they act as): their part of the log holds what
# they did as well as what was done to them.
ACTORS = {"orders.trader": ActorKind.TRADER, "traders.device": ActorKind.DEVICE}


def entries_for(obj, *, limit: int = 100) -> list[AuditEntry]:
    """An object's part of the log, newest first."""
    entries = AuditEntry.objects.for_object(obj)
    kind = ACTORS.get(obj._meta.label_lower)
    if kind is not None:
        entries = entries | AuditEntry.objects.filter(actor_kind=kind, actor_id=str(obj.pk))
    return list(entries.order_by("-created_at", "-id")[:limit])
