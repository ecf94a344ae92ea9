from django.db import models
from django.utils.translation import gettext_lazy as _


class IdempotencyRecord(models.Model):
    """One Idempotency-Key of one caller (docs/responses.md#headers).

    The row is inserted (INSERT ... ON CONFLICT DO NOTHING: the insert that wins owns
    the key) in the same transaction as the work and the stored response, so a
    committed row always holds the answer of what was committed with it.
    """

    scope = models.CharField(max_length=80, verbose_name=_("scope"))
    key = models.CharField(max_length=255, verbose_name=_("key"))
    fingerprint = models.CharField(max_length=64, verbose_name=_("fingerprint"))
    status_code = models.PositiveSmallIntegerField(null=True, verbose_name=_("status code"))
    body = models.BinaryField(null=True, verbose_name=_("body"))
    created_at = models.DateTimeField(
        auto_now_add=True, db_index=True, verbose_name=_("created at")
    )

    class Meta:
        verbose_name = _("idempotency record")
        verbose_name_plural = _("idempotency records")
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_scope_key_unique")
        ]
