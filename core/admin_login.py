"""The admin sign-in, throttled without handing anyone a way to lock operators out
(core.signin_throttle: per (user name, client address) pair and per address, counted
before the password is checked, failing open when the shared cache is down)."""

from django.conf import settings
from django.contrib import admin
from django.http import HttpResponse
from django.utils.html import escape
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from .admin_2fa import AdminSignInForm
from .signin_throttle import signin_succeeded, signin_try

admin.site.login_form = AdminSignInForm
# The list tables need the width more than the app menu does: it is on the index page.
admin.site.enable_nav_sidebar = False


def throttled_admin_login(request, extra_context=None):
    extra_context = {"admin_2fa": settings.ADMIN_2FA, **(extra_context or {})}
    if request.method != "POST":
        return admin.site.login(request, extra_context)
    counted = signin_try(request, request.POST.get("username", ""), realm="admin")
    if not counted.allowed:
        minutes = max(1, counted.retry_after // 60)
        text = _("Too many failed sign-in attempts. Try again in %(minutes)d minutes.") % {
            "minutes": minutes
        }
        response = HttpResponse(
            f'<!doctype html><html lang="{escape(get_language())}"><meta charset="utf-8">'
            f"<title>{escape(_('Sign-in locked'))}</title><p>{escape(text)}</p></html>",
            status=429,
        )
        response["Retry-After"] = str(counted.retry_after)
        return response
    response = admin.site.login(request, extra_context)
    if request.user.is_authenticated and response.status_code in (301, 302):
        signin_succeeded(counted)
    return response
