from django.db import models


class IdempotencyRecord(models.Model):
    """One Idempotency-Key of one caller (docs/responses.md#headers).

    The row is inserted (INSERT ... ON CONFLICT DO NOTHING: the insert that wins owns
    the key) in the same transaction as the work and the stored response, so a
    committed row always holds the answer of what was committed with it.
    """

    scope = models.CharField(max_length=80)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True)
    body = models.BinaryField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_scope_key_unique")
        ]
