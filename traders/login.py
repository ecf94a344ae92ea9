"""The cabinet's sign-in: user name and password (Django's session and CSRF), the
authenticator's code as for operators when TRADER_2FA is on, throttled exactly like
the admin's sign-in (core.admin_login's counters)."""

from django.conf import settings
from django.contrib.auth import login, logout
from django.contrib.auth.forms import AuthenticationForm
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_POST
from django_otp import login as otp_login
from django_otp import user_has_device
from django_otp.plugins.otp_totp.models import TOTPDevice

from core.admin_2fa import SignInCodeFields, enrolment_context, second_factor_step
from core.signin_throttle import signin_succeeded, signin_try

from .access import (
    LOGIN_URL,
    cabinet_page,
    forbidden,
    in_cabinet_language,
    needs_second_factor,
    signed_in_trader,
)


class TraderSignInForm(AuthenticationForm, SignInCodeFields):
    """Password, and with TRADER_2FA on, the code of a user's confirmed device."""

    def clean(self):
        cleaned = super().clean()
        self.check_code(enabled=settings.TRADER_2FA)
        return cleaned


def _next_url(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target.startswith("/trader/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/trader/"


# The admin's throttle (core.signin_throttle), with the cabinet's own counters.
def _throttle_try(request):
    """(allowed, seconds until the lockout ends, the counted try). Every try is
    counted before its password is checked."""
    counted = signin_try(request, request.POST.get("username", ""), realm="trader")
    return counted.allowed, counted.retry_after, counted


def _throttle_failed(counted) -> None:
    """Nothing more to count: the try was counted before the password was checked."""


def _throttle_succeeded(counted) -> None:
    signin_succeeded(counted)


def _locked_out(request, retry_after: int):
    minutes = max(1, retry_after // 60)
    message = _("Too many failed sign-in attempts. Try again in %(minutes)d minutes.") % {
        "minutes": minutes
    }
    response = cabinet_page(request, "traders/login.html", {"locked": message}, status=429)
    response["Retry-After"] = str(retry_after)
    return response


@never_cache
@csrf_protect
@in_cabinet_language
def sign_in(request):
    form = TraderSignInForm(request, data=request.POST if request.method == "POST" else None)
    context = {"form": form, "next": _next_url(request), "two_factor": settings.TRADER_2FA}
    if request.method != "POST":
        if signed_in_trader(request.user) is not None:
            return redirect(_next_url(request))  # already in: on to the cabinet
        return cabinet_page(request, "traders/login.html", context)
    allowed, retry_after, counted = _throttle_try(request)
    if not allowed:
        return _locked_out(request, retry_after)
    user = form.get_user() if form.is_valid() else None
    if user is not None and signed_in_trader(user) is None and user.is_staff:
        return forbidden(request)  # the right password of an operator: not a trader
    if user is None or signed_in_trader(user) is None:
        _throttle_failed(counted)
        if user is not None:
            form.add_error(None, _("This account has no trader's cabinet."))
        return cabinet_page(request, "traders/login.html", context)
    _throttle_succeeded(counted)
    login(request, user)
    if settings.TRADER_2FA and user_has_device(user):
        device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
        if device is not None:
            otp_login(request, device)
    return redirect(_next_url(request))


@require_POST
@csrf_protect
def sign_out(request):
    logout(request)
    return redirect(LOGIN_URL)


@never_cache
@in_cabinet_language
def two_factor(request):
    """Enrol an authenticator (QR code) or give the code of the one confirmed."""
    user = request.user
    if not user.is_authenticated:
        return redirect(LOGIN_URL)
    if signed_in_trader(user) is None:
        return forbidden(request)
    if not needs_second_factor(user):
        return redirect(_next_url(request))
    device, form, done = second_factor_step(request)
    if done:
        return redirect(_next_url(request))
    context = {**enrolment_context(device), "form": form, "next": _next_url(request)}
    return cabinet_page(request, "traders/two_factor.html", context)
