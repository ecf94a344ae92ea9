"""API keys: random, shown once, stored only as a SHA-256 digest.

A fast digest is right here (unlike passwords): generated keys carry 256 bits of
entropy, so there is nothing to brute-force, and every request must look one up.
"""

import hashlib
import hmac
import secrets

from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .memo import WatchedQuerySet


def generate_key(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def digests_match(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


class ApiKeyBase(models.Model):
    name = models.CharField(max_length=100, blank=True, verbose_name=_("name"))
    key_hash = models.CharField(
        max_length=64, unique=True, editable=False, verbose_name=_("key hash")
    )
    key_prefix = models.CharField(
        max_length=12,
        editable=False,
        help_text=_("First characters, to tell keys apart"),
        verbose_name=_("key prefix"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked at"))
    last_used_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("last used at")
    )

    objects = WatchedQuerySet.as_manager()

    class Meta:
        abstract = True

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def set_key(self, raw: str) -> None:
        self.key_hash = hash_key(raw)
        self.key_prefix = raw[:8]

    def __str__(self):
        state = gettext("revoked") if self.revoked_at else gettext("active")
        return f"{self.key_prefix}… ({state})"
