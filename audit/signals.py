"""Entries written from Django's own signals, connected in AuditConfig.ready so no app
needs to import this one: sign-ins and their failures, and every admin change (the
admin's LogEntry rows: additions, changes with the fields changed and their new
values, deletions)."""

import json

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry, LogEntryManager
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.exceptions import ObjectDoesNotExist
from django.db.models.signals import post_save
from django.urls import reverse
from django.utils import translation
from django.utils.text import capfirst

from .context import current_request
from .models import ActorKind
from .services import audit_record, audited_in_request

ADMIN_ACTIONS = {ADDITION: "admin.add", CHANGE: "admin.change", DELETION: "admin.delete"}


def _signer(user) -> tuple[str, str]:
    """A trader signs in to the cabinet with the user linked to it; anyone else is an
    operator, named by the user name."""
    trader = getattr(user, "trader", None) if not user.is_staff else None
    if trader is not None:
        return ActorKind.TRADER, str(trader.pk)
    return ActorKind.OPERATOR, user.get_username()


def on_logged_in(sender, request, user, **kwargs):
    kind, ident = _signer(user)
    audit_record(actor_kind=kind, actor_id=ident, action="sign_in", obj=user, request=request)


def _failed_signer(name: str, request) -> tuple[str, str]:
    """A failure on the cabinet's sign-in is a trader's (by the trader's id when the
    name is one of theirs, else by the name typed); anywhere else an operator's."""
    if request is None or request.path != reverse("trader-login"):
        return ActorKind.OPERATOR, name
    user = get_user_model().objects.filter(username=name).select_related("trader").first()
    trader = getattr(user, "trader", None) if user is not None else None
    return ActorKind.TRADER, str(trader.pk) if trader is not None else name


def on_login_failed(sender, credentials, request=None, **kwargs):
    # Django has already masked the password in `credentials`; only the name is kept.
    name = str(credentials.get("username", ""))[:150]
    kind, ident = _failed_signer(name, request)
    audit_record(
        actor_kind=kind,
        actor_id=ident,
        action="sign_in_failed",
        object_type="auth.user",
        changes={"username": name},
        request=request,
    )


def _changed(entry: LogEntry) -> dict:
    """The fields the admin says it changed, with their values now."""
    try:
        messages = json.loads(str(entry.change_message or "[]"))
    except ValueError:
        return {"message": str(entry.change_message)}
    if not isinstance(messages, list):
        return {"message": str(entry.change_message)}
    labels = [
        label
        for m in messages
        if isinstance(m, dict)
        for label in m.get("changed", {}).get("fields", [])
    ]
    changes: dict = {"message": entry.get_change_message(), "fields": labels}
    try:
        obj = entry.get_edited_object() if labels and entry.content_type_id else None
    except ObjectDoesNotExist:  # gone by now: the field names still say what changed
        obj = None
    if obj is not None:
        values = {}
        # The admin writes the labels untranslated (translation_override(None)).
        with translation.override(None):
            for field in obj._meta.concrete_fields:
                label = str(field.verbose_name)
                if capfirst(label) in labels or label in labels:
                    values[field.name] = field.value_from_object(obj)
        changes["values"] = values
    return changes


def record_log_entry(entry: LogEntry) -> None:
    content_type = entry.content_type
    object_type = f"{content_type.app_label}.{content_type.model}" if content_type else ""
    request = current_request()
    if request is not None and audited_in_request(request, object_type, entry.object_id):
        return  # the action wrote its own entry
    changes = {"object": entry.object_repr}
    if entry.action_flag == CHANGE:
        changes.update(_changed(entry))
    elif entry.change_message:
        changes["message"] = entry.get_change_message()
    audit_record(
        actor_kind=ActorKind.OPERATOR,
        actor_id=entry.user.get_username() if entry.user_id else "",
        action=ADMIN_ACTIONS.get(entry.action_flag, "admin.change"),
        object_type=object_type,
        object_id=entry.object_id or "",
        changes=changes,
        request=request,
    )


def on_log_entry(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        record_log_entry(instance)


def _log_actions_with_audit(original):
    """The admin writes the LogEntry rows of several deletions at once with
    bulk_create, which sends no post_save: those are recorded here."""

    def log_actions(self, *args, **kwargs):
        entries = original(self, *args, **kwargs)
        if isinstance(entries, list) and len(entries) > 1:
            for entry in entries:
                record_log_entry(entry)
        return entries

    log_actions.audited = True
    return log_actions


def connect() -> None:
    user_logged_in.connect(on_logged_in, dispatch_uid="audit-sign-in")
    user_login_failed.connect(on_login_failed, dispatch_uid="audit-sign-in-failed")
    post_save.connect(on_log_entry, sender=LogEntry, dispatch_uid="audit-admin-change")
    if not getattr(LogEntryManager.log_actions, "audited", False):
        LogEntryManager.log_actions = _log_actions_with_audit(LogEntryManager.log_actions)
