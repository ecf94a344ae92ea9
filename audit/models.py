"""AuditEntry: one line of the append-only audit log. Nothing edits or deletes it: the
model refuses save() of an existing row and delete(), its QuerySet refuses update()
and delete(), the admin offers neither, and on PostgreSQL a trigger refuses UPDATE and
DELETE (migration 0002)."""

import json

from django.apps import apps
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AuditImmutable(Exception):
    """Raised for any attempt to change or remove an audit entry."""


class ActorKind(models.TextChoices):
    OPERATOR = "operator", _("operator")
    TRADER = "trader", _("trader")
    MERCHANT = "merchant", _("merchant")
    DEVICE = "device", _("device")
    SYSTEM = "system", _("system")


# Each action in the operators' words; the code stays in the row, the CSV and the
# filter, and beside the words on the page.
ACTION_LABELS = {
    "sign_in": _("sign-in"),
    "sign_in_failed": _("failed sign-in"),
    "admin.add": _("added in the admin"),
    "admin.change": _("changed in the admin"),
    "admin.delete": _("deleted in the admin"),
    "audit.export": _("audit log exported"),
    "orders.export": _("orders exported"),
    "order.confirm": _("order confirmed"),
    "order.decline": _("order declined"),
    "order.cancel": _("order cancelled"),
    "dispute.accept": _("dispute accepted"),
    "dispute.reject": _("dispute rejected"),
    "settlement.enter": _("settlement entered"),
    "settlement.approve": _("settlement approved"),
    "settlement.reject": _("settlement rejected"),
    "withdrawal.request": _("withdrawal requested"),
    "requisite.enable": _("requisite switched on"),
    "requisite.disable": _("requisite switched off"),
    "device.add": _("device added"),
    "device.remove": _("device removed"),
    "notification.attach": _("notification attached to an order"),
    "webhook_urls.set": _("webhook URLs set"),
    "webhook_secret.rotate": _("webhook secret rotated"),
}


class AuditQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AuditImmutable("Audit entries cannot be updated")

    def delete(self):
        raise AuditImmutable("Audit entries cannot be deleted")

    def bulk_update(self, objs, fields, batch_size=None):
        raise AuditImmutable("Audit entries cannot be updated")

    def for_object(self, obj) -> "AuditQuerySet":
        return self.filter(object_type=obj._meta.label_lower, object_id=str(obj.pk))


class AuditEntry(models.Model):
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)
    actor_kind = models.CharField(_("actor kind"), max_length=16, choices=ActorKind.choices)
    actor_id = models.CharField(_("actor"), max_length=150, blank=True)
    client_address = models.CharField(_("client address"), max_length=64, blank=True)
    action = models.CharField(_("action"), max_length=64)
    object_type = models.CharField(_("object type"), max_length=64, blank=True)
    object_id = models.CharField(_("object id"), max_length=64, blank=True)
    changes = models.JSONField(_("what changed"), default=dict, blank=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["object_type", "object_id"], name="audit_object"),
            models.Index(fields=["actor_kind", "actor_id"], name="audit_actor"),
            # a plain b-tree: the log is filtered by action with `=` only, so the
            # pattern-ops copy PostgreSQL adds for db_index would only cost each write
            models.Index(fields=["action"], name="audit_action"),
        ]

    def __str__(self):
        return (
            f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_kind}:{self.actor_id} {self.action}"
        )

    @property
    def action_label(self) -> str:
        return str(ACTION_LABELS.get(self.action, self.action))

    @property
    def object_label(self) -> str:
        """The kind of object in words (its model's name), else its stored type."""
        try:
            return str(apps.get_model(self.object_type)._meta.verbose_name)
        except (LookupError, ValueError):
            return self.object_type

    @property
    def changes_json(self) -> str:
        return json.dumps(self.changes, ensure_ascii=False, sort_keys=True)

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AuditImmutable("Audit entries cannot be changed")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AuditImmutable("Audit entries cannot be deleted")
