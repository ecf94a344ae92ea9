"""What every admin page shares: the operators' time zone and language, and the
second factor.

Only `/admin/` is touched. The API and the payer's pages keep their own language and
UTC; operators read times in `OPERATOR_TIME_ZONE` with the zone named, in
`OPERATOR_LANGUAGE` (Russian) unless they chose another language with the switch in
the header (Django's language cookie). With `ADMIN_2FA` on, a staff member signed in with a
password alone reaches nothing but the two-factor page until a TOTP code is given.
"""

import zoneinfo
from functools import lru_cache

from django.conf import settings
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import urlencode

ADMIN_PREFIX = "/admin/"


@lru_cache(maxsize=4)
def operator_zone(name: str) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(name)


def operator_note(text, **values) -> str:
    """`text` (a lazy translation, with `%(name)s` for `values`) in the operators'
    language: a note kept in an object's history, and with it in the audit log, is read
    later by every operator, whatever language the one who acted had chosen."""
    with translation.override(settings.OPERATOR_LANGUAGE):
        return str(text) % values if values else str(text)


def operator_language(request) -> str:
    """The language the operator chose (the header's switch sets Django's language
    cookie), else the operators' default: not the browser's, so a new operator's
    English-speaking browser still opens the back office in Russian."""
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if chosen in dict(settings.LANGUAGES):
        return chosen
    return settings.OPERATOR_LANGUAGE


def needs_second_factor(user) -> bool:
    if not settings.ADMIN_2FA or not user.is_authenticated or not user.is_staff:
        return False
    is_verified = getattr(user, "is_verified", None)
    return not (is_verified and is_verified())


class OperatorAdminMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(ADMIN_PREFIX):
            return self.get_response(request)
        timezone.activate(operator_zone(settings.OPERATOR_TIME_ZONE))
        language = operator_language(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        try:
            open_paths = {
                reverse("admin:login"),
                reverse("admin:logout"),
                reverse("admin-2fa"),
                reverse("admin-login"),
            }
            if needs_second_factor(request.user) and request.path not in open_paths:
                return redirect(
                    f"{reverse('admin-2fa')}?{urlencode({'next': request.get_full_path()})}"
                )
            response = self.get_response(request)
            response.headers.setdefault("Content-Language", language)
            return response
        finally:
            timezone.deactivate()
            translation.deactivate()
