"""X-API-Key authentication. Terminal keys and trader keys are separate key spaces:
a terminal key on a trader route (or the reverse) is simply an invalid key.

Core owns no keys: each app that does registers a look-up for its key space
(`register_key_lookup`, from its AppConfig.ready), so `core` imports no app.

Failed attempts (no key, or a wrong one) are counted per client address; past
AUTH_FAILURE_RATE_LIMIT the address is refused with 429 before any database look-up,
whatever key it sends, until its window passes. Other addresses are not affected.

One trip to the shared cache per request: the failed-auth count, the key's rate-limit
count (left on the request for ApiKeyRateThrottle) and the configuration generation
under which keys are kept per process (core.memo) come in one pipeline, before
any database look-up."""

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated, Throttled
from rest_framework.permissions import SAFE_METHODS

from . import logs, memo
from .client_address import client_address
from .keys import digests_match, hash_key
from .rates import parse_rate
from .throttling import rate_window, window_count, window_round

HEADER = "HTTP_X_API_KEY"
LAST_USED_RESOLUTION = timedelta(minutes=5)

# digest -> the key row (with its owner loaded), or None when there is no usable key
# (unknown, or its owner deactivated).
KeyLookup = Callable[[str], object | None]
_lookups: dict[str, KeyLookup] = {}


def register_key_lookup(kind: str, lookup: KeyLookup) -> None:
    """`kind` names both the key space and the key's owner attribute ("terminal",
    "trader")."""
    _lookups[kind] = lookup


@dataclass
class Principal:
    terminal: object = None
    trader: object = None
    key_hash: str = ""
    is_authenticated: bool = True


def _id(obj) -> str | None:
    return None if obj is None else str(obj.pk)


class AuthRateLimited(Throttled):
    default_code = "auth_rate_limited"


def _failure_window(address: str) -> tuple[str, int, float]:
    rate = parse_rate(settings.AUTH_FAILURE_RATE_LIMIT, name="AUTH_FAILURE_RATE_LIMIT")
    now = time.time()
    window = int(now // rate.seconds)
    wait = (window + 1) * rate.seconds - now
    return f"authfail:{address}:{window}", rate.count, wait


def _count_failure(address: str) -> None:
    key, _, wait = _failure_window(address)
    window_count(key, int(wait))


class _KeyAuthentication(BaseAuthentication):
    kind = ""

    def authenticate(self, request):
        address = client_address(request)
        raw = request.META.get(HEADER, "").strip()
        digest = hash_key(raw) if raw else ""
        failures_key, limit, wait = _failure_window(address)
        window = rate_window(digest) if raw else None
        count, (failures, generation) = window_round(
            count=None if window is None else (window.key, window.period),
            peek=[failures_key, memo.GENERATION_KEY],
        )
        if (failures or 0) >= limit:
            raise AuthRateLimited(wait=max(1, int(wait + 0.999)))
        if not raw:
            _count_failure(address)
            raise NotAuthenticated("API key is required", code="api_key_required")
        request.rate_counted = (window, count)
        memo.generation_read(generation)
        key = self._lookup(digest)
        if key is None or key.revoked_at is not None or not digests_match(key.key_hash, digest):
            _count_failure(address)
            raise AuthenticationFailed("Invalid API key", code="invalid_api_key")
        if request.method not in SAFE_METHODS:  # a GET writes nothing, not even this
            self.touch(key, digest)
        principal = Principal(**{self.kind: getattr(key, self.kind)}, key_hash=digest)
        logs.bind(terminal_id=_id(principal.terminal), trader_id=_id(principal.trader))
        return principal, key

    def _lookup(self, digest: str):
        """The key row for `digest` with its owner, kept per process (core.memo)."""
        kept = self.keys.get(digest)
        if kept is not None:
            return kept[0]
        key = _lookups[self.kind](digest)
        self.keys.put(digest, memo.snapshot([key]))
        return key

    def touch(self, key, digest: str) -> None:
        """Keep last_used_at roughly right for operators without a write per request
        (the update is not a configuration change: the kept key is updated in place)."""
        now = timezone.now()
        if key.last_used_at is None or key.last_used_at < now - LAST_USED_RESOLUTION:
            type(key).objects.filter(pk=key.pk).update_quietly(last_used_at=now)
            key.last_used_at = now
            self.keys.put(digest, memo.snapshot([key]))

    def authenticate_header(self, request):
        return "X-API-Key"


class TerminalKeyAuthentication(_KeyAuthentication):
    kind = "terminal"
    keys = memo.Memo("terminal keys")


class TraderKeyAuthentication(_KeyAuthentication):
    kind = "trader"
    keys = memo.Memo("trader keys")


def other_key_round(address: str, digest: str):
    """For a key space outside X-API-Key (a trader's device token): 429 when `address`
    is past its failed authentications, else this request counted in the key's rate
    window, in one trip to the cache that also reads the configuration generation
    (core.memo: the device is kept per process under it). Returns (window, count) for
    ApiKeyRateThrottle (`request.rate_counted`); the window is None when no key was
    sent."""
    failures_key, limit, wait = _failure_window(address)
    window = rate_window(digest) if digest else None
    count, (failures, generation) = window_round(
        count=None if window is None else (window.key, window.period),
        peek=[failures_key, memo.GENERATION_KEY],
    )
    if (failures or 0) >= limit:
        raise AuthRateLimited(wait=max(1, int(wait + 0.999)))
    memo.generation_read(generation)
    return window, count


def count_failed_authentication(address: str) -> None:
    """One more failed authentication from `address`, as a wrong API key counts."""
    _count_failure(address)
