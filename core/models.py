from django.db import models


class IdempotencyRecord(models.Model):
    """One Idempotency-Key of one caller (docs/responses.md#headers).

    The row is committed as `in_flight` before the work starts, so a concurrent
    repeat sees it; the stored response is written in the same transaction as the
    work itself, so a stored response always matches what was committed.
    """

    scope = models.CharField(max_length=80)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    in_flight = models.BooleanField(default=True)
    status_code = models.PositiveSmallIntegerField(null=True)
    body = models.BinaryField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_scope_key_unique")
        ]
