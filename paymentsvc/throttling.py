"""Per-key request rate limit: a fixed one-minute window counted in the shared cache
(Redis in production), so every web process sees the same count."""

import logging
import time

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import BaseThrottle

from .rates import parse_rate

logger = logging.getLogger(__name__)


def window_count(key: str, period: int) -> int | None:
    """Count one more in a fixed window kept `period` seconds; None when the shared
    cache (Redis) is down. Limits then fail open: money is still guarded (the anti-fraud
    cap, balances and matching live in the database); refusing every caller while Redis
    restarts would not be."""
    # incr first: once a window is open (every request but its first) that is
    # the only round trip to the cache.
    try:
        try:
            return cache.incr(key)
        except ValueError:  # the window's first request
            if cache.add(key, 1, timeout=period + 1):
                return 1
            return cache.incr(key)  # another process opened it between our incr and add
    except Exception as exc:
        logger.warning("Rate limit not counted, cache unavailable: %s", exc)
        return None


def window_peek(key: str) -> int:
    """The count so far in a window; 0 when the shared cache is down (fail open)."""
    try:
        return cache.get(key) or 0
    except Exception as exc:
        logger.warning("Rate limit not read, cache unavailable: %s", exc)
        return 0


class ApiKeyRateThrottle(BaseThrottle):
    def allow_request(self, request, view):
        principal = getattr(request, "user", None)
        ident = getattr(principal, "key_hash", "") or self.get_ident(request)
        rate = parse_rate(settings.API_RATE_LIMIT, name="API_RATE_LIMIT")
        limit, period = rate.count, rate.seconds
        now = time.time()
        window = int(now // period)
        key = f"rl:{ident[:32]}:{window}"
        self._wait = (window + 1) * period - now
        count = window_count(key, period)
        return count is None or count <= limit

    def wait(self):
        return max(1, int(self._wait + 0.999))
