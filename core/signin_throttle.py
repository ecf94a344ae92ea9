"""Password sign-in throttling, one function for every sign-in form (the admin's; the
traders' cabinet calls the very same code with its own realm).

Failures are counted per (user name, client address) pair and per address, never per
user name alone: ADMIN_LOGIN_RATE_LIMIT's count for a pair (5 in 15 minutes by
default), four times that for an address, and the operator signs in from anywhere else
as usual. The user name is counted the way Django compares it (NFKC, as the sign-in
form normalises it) and case-folded, so `ｏｐｅｒａｔｏｒ` and `Operator` share the
tries of `operator`.

Every try is counted (atomic INCRs of both windows together, in the shared cache) before
its password is checked, and checked only when its counts are within the limits: however many arrive at
once, no more passwords are checked than the limits allow. A success takes its try back
and forgets the pair's failures. When the shared cache is down the throttle fails open,
as the API's limits do (core.throttling), with a warning in the log: refusing every
operator while Redis restarts would lock out the people who can fix it.
"""

import hashlib
import logging
import unicodedata
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from .client_address import client_address
from .rates import Rate, parse_rate
from .throttling import window_counts

logger = logging.getLogger(__name__)

# An address may fail this many times the (user name, address) pair's limit.
ADDRESS_FACTOR = 4


def signin_rate() -> Rate:
    return parse_rate(settings.ADMIN_LOGIN_RATE_LIMIT, name="ADMIN_LOGIN_RATE_LIMIT")


def normalize_username(raw: str) -> str:
    return unicodedata.normalize("NFKC", raw or "").strip().casefold()[:150]


@dataclass(frozen=True)
class SignInTry:
    """One counted try: `allowed` says whether its password may be checked; when not,
    `retry_after` is the lockout in seconds."""

    allowed: bool
    retry_after: int
    pair_key: str
    address_key: str


def signin_try(request, username: str, *, realm: str = "admin") -> SignInTry:
    """Count a sign-in try of `username` from the request's client address, before its
    password is checked. Check the password only if the answer's `allowed`; then call
    `signin_succeeded` when it was right."""
    rate = signin_rate()
    address = client_address(request)
    pair = hashlib.sha256(f"{normalize_username(username)}\0{address}".encode()).hexdigest()
    pair_key, address_key = f"{realm}-login:pair:{pair}", f"{realm}-login:addr:{address}"
    counts = window_counts([pair_key, address_key], rate.seconds)
    if counts is None:
        logger.warning("Sign-in (%s) not throttled: the shared cache is unavailable", realm)
    pair_count, address_count = counts or (0, 0)
    allowed = pair_count <= rate.count and address_count <= rate.count * ADDRESS_FACTOR
    return SignInTry(
        allowed=allowed, retry_after=rate.seconds, pair_key=pair_key, address_key=address_key
    )


def signin_succeeded(counted: SignInTry) -> None:
    """The password was right: the try does not count, and the pair starts afresh."""
    try:
        cache.delete(counted.pair_key)
        cache.decr(counted.address_key)
    except ValueError:
        pass  # the address's window ended meanwhile
    except Exception as exc:
        logger.warning("Sign-in counts not reset, cache unavailable: %s", exc)
