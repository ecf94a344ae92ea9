"""X-API-Key authentication. Terminal keys and trader keys are separate key spaces:
a terminal key on a trader route (or the reverse) is simply an invalid key."""

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated

from . import logs
from .keys import digests_match, hash_key

HEADER = "HTTP_X_API_KEY"
LAST_USED_RESOLUTION = timedelta(minutes=5)


@dataclass
class Principal:
    terminal: object = None
    trader: object = None
    key_hash: str = ""
    is_authenticated: bool = True


def _id(obj) -> str | None:
    return None if obj is None else str(obj.pk)


def _raw_key(request) -> str:
    raw = request.META.get(HEADER, "").strip()
    if not raw:
        raise NotAuthenticated("API key is required", code="api_key_required")
    return raw


class _KeyAuthentication(BaseAuthentication):
    def lookup(self, digest: str):
        raise NotImplementedError

    def authenticate(self, request):
        raw = _raw_key(request)
        digest = hash_key(raw)
        key = self.lookup(digest)
        if key is None or key.revoked_at is not None or not digests_match(key.key_hash, digest):
            raise AuthenticationFailed("Invalid API key", code="invalid_api_key")
        self.touch(key)
        principal = self.principal(key, digest)
        logs.bind(terminal_id=_id(principal.terminal), trader_id=_id(principal.trader))
        return principal, key

    @staticmethod
    def touch(key) -> None:
        """Keep last_used_at roughly right for operators without a write per request."""
        now = timezone.now()
        if key.last_used_at is None or key.last_used_at < now - LAST_USED_RESOLUTION:
            type(key).objects.filter(pk=key.pk).update(last_used_at=now)

    def authenticate_header(self, request):
        return "X-API-Key"


class TerminalKeyAuthentication(_KeyAuthentication):
    def lookup(self, digest):
        from finance.models import ApiKey

        key = (
            ApiKey.objects.select_related("terminal", "terminal__client")
            .filter(key_hash=digest)
            .first()
        )
        if key is not None and not key.terminal.is_active:
            return None
        return key

    def principal(self, key, digest):
        return Principal(terminal=key.terminal, key_hash=digest)


class TraderKeyAuthentication(_KeyAuthentication):
    def lookup(self, digest):
        from orders.models import TraderApiKey

        key = TraderApiKey.objects.select_related("trader").filter(key_hash=digest).first()
        if key is not None and not key.trader.is_active:
            return None
        return key

    def principal(self, key, digest):
        return Principal(trader=key.trader, key_hash=digest)
