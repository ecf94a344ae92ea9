"""The admin sign-in, throttled without handing anyone a way to lock operators out.

Failures are counted per (user name, client address) pair and per address, never per
user name alone: five wrong passwords typed from one address lock that pair, twenty
lock the address, and the operator signs in from anywhere else as usual. The user name
is counted the way Django compares it (NFKC, as the sign-in form normalises it) and
case-folded, so `ｏｐｅｒａｔｏｒ` and `Operator` share the tries of `operator`.
"""

import hashlib
import unicodedata

from django.conf import settings
from django.contrib import admin
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.html import escape

from .admin_2fa import AdminSignInForm
from .client_address import client_address
from .rates import Rate, parse_rate

admin.site.login_form = AdminSignInForm
# The list tables need the width more than the app menu does: it is on the index page.
admin.site.enable_nav_sidebar = False

# An address may fail this many times the (user name, address) pair's limit.
ADDRESS_FACTOR = 4


def _rate() -> Rate:
    return parse_rate(settings.ADMIN_LOGIN_RATE_LIMIT, name="ADMIN_LOGIN_RATE_LIMIT")


def normalize_username(raw: str) -> str:
    return unicodedata.normalize("NFKC", raw or "").strip().casefold()[:150]


def _keys(request) -> tuple[tuple[str, int], tuple[str, int]]:
    username = normalize_username(request.POST.get("username", ""))
    address = client_address(request)
    limit = _rate().count
    pair = hashlib.sha256(f"{username}\0{address}".encode()).hexdigest()
    return (
        (f"admin-login:pair:{pair}", limit),
        (f"admin-login:addr:{address}", limit * ADDRESS_FACTOR),
    )


def _locked(keys) -> bool:
    return any((cache.get(key) or 0) >= limit for key, limit in keys)


def _count_failure(keys) -> None:
    timeout = _rate().seconds
    for key, _ in keys:
        if not cache.add(key, 1, timeout=timeout):
            try:
                cache.incr(key)
            except ValueError:
                cache.add(key, 1, timeout=timeout)


def throttled_admin_login(request, extra_context=None):
    extra_context = {"admin_2fa": settings.ADMIN_2FA, **(extra_context or {})}
    if request.method != "POST":
        return admin.site.login(request, extra_context)
    keys = _keys(request)
    if _locked(keys):
        lockout = _rate().seconds
        minutes = max(1, lockout // 60)
        text = f"Too many failed sign-in attempts. Try again in {minutes} minutes."
        response = HttpResponse(
            f"<!doctype html><title>Locked</title><p>{escape(text)}</p>", status=429
        )
        response["Retry-After"] = str(lockout)
        return response
    response = admin.site.login(request, extra_context)
    if request.user.is_authenticated and response.status_code in (301, 302):
        cache.delete(keys[0][0])
    else:
        _count_failure(keys)
    return response
