"""Per-key request rate limit: a fixed one-minute window counted in the shared cache
(Redis in production), so every web process sees the same count.

Key authentication counts the request in the same trip to the cache as its other reads
(`window_round`) and leaves the count on the request; the throttle only compares it."""

import fcntl
import logging
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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
    counts, _ = _trip([key], period, [])
    return None if counts is None else counts[0]


def window_counts(keys: list[str], period: int) -> list[int] | None:
    """Count one more in each of `keys` together: no other count of them comes between,
    so a try that is n-th in one window is n-th in every other (two counts taken one
    after the other let a try be early in one window and late in the next). None when
    the shared cache is down."""
    counts, _ = _trip(keys, period, [])
    return counts


def window_peek(key: str) -> int:
    """The count so far in a window; 0 when the shared cache is down (fail open)."""
    _, (value,) = _trip([], 0, [key])
    return value or 0


def window_round(*, count: tuple[str, int] | None, peek: list[str]) -> tuple:
    """Count one more in `count` = (key, period) and read each key of `peek`, in one
    trip to the cache where it can (Redis); (count or None, [value or None]). When the
    cache is down, nothing is counted or read (None everywhere): the limits fail open."""
    key, period = count if count is not None else (None, 0)
    counts, values = _trip([] if key is None else [key], period, peek)
    return (counts[0] if counts else None), values


def _trip(keys: list[str], period: int, peek: list[str]) -> tuple:
    try:
        trip = getattr(cache, "round_trip", None)
        if trip is not None:
            return trip(incr=keys, period=period, get=peek)
        counted = []
        if keys:
            with _counting():
                counted = [_count(key, period) for key in keys]
        return counted, [cache.get(key) for key in peek]
    except Exception as exc:
        logger.warning("Rate limit not counted, cache unavailable: %s", exc)
        return None, [None] * len(peek)


def _count(key: str, period: int) -> int:
    # incr first: once a window is open (every request but its first) that is all.
    # Only Redis counts atomically (round_trip above); another cache's incr reads and
    # writes back, so counts of one machine's processes take turns on a file lock
    # (taken by the caller, once for all the keys counted together).
    try:
        return cache.incr(key)
    except ValueError:  # the window's first request
        if cache.add(key, 1, timeout=period + 1):
            return 1
        return cache.incr(key)  # another process opened it between our incr and add


@contextmanager
def _counting():
    directory = Path(settings.VAR_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / "cache-count.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Window:
    key: str
    limit: int
    period: int
    wait: float  # seconds until the next window


def rate_window(ident: str) -> Window:
    """The API_RATE_LIMIT window now for `ident` (a key's digest, or an address)."""
    rate = parse_rate(settings.API_RATE_LIMIT, name="API_RATE_LIMIT")
    now = time.time()
    window = int(now // rate.seconds)
    return Window(
        key=f"rl:{ident[:32]}:{window}",
        limit=rate.count,
        period=rate.seconds,
        wait=(window + 1) * rate.seconds - now,
    )


class ApiKeyRateThrottle(BaseThrottle):
    def allow_request(self, request, view):
        counted = getattr(request, "rate_counted", None)
        if counted is not None:  # counted by key authentication, on the key's digest
            window, count = counted
        else:
            principal = getattr(request, "user", None)
            window = rate_window(getattr(principal, "key_hash", "") or self.get_ident(request))
            count = window_count(window.key, window.period)
        self._wait = window.wait
        return count is None or count <= window.limit

    def wait(self):
        return max(1, int(self._wait + 0.999))
