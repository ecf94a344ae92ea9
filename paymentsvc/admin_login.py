"""The admin sign-in, throttled: after a few failures for one user name (or many from
one address) sign-in is refused for a while, whatever the password."""

from django.conf import settings
from django.contrib import admin
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.html import escape

from .client_address import client_address
from .rates import Rate, parse_rate


def _rate() -> Rate:
    return parse_rate(settings.ADMIN_LOGIN_RATE_LIMIT, name="ADMIN_LOGIN_RATE_LIMIT")


def _keys(request) -> list[tuple[str, int]]:
    username = request.POST.get("username", "")[:150].strip().lower()
    address = client_address(request)
    limit = _rate().count
    return [(f"admin-login:user:{username}", limit), (f"admin-login:addr:{address}", limit * 4)]


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
