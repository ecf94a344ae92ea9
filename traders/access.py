"""What every page of the traders' cabinet shares: its language (Russian unless
`?lang=en` or the language cookie says otherwise), the sign-in check
(`trader_required`), the navigation, and rendering a page.

A new page is a view under `@trader_required` that returns `cabinet_page(...)` with a
template extending `traders/base.html` (blocks `title` and `content`); a line in
`NAV` puts it in the navigation.
"""

from functools import wraps
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from orders.models import Trader

LANGUAGES = ("ru", "en")
# The session remembers the trader its user reached a page as (set only after every
# check below passed): the orders poll answers its 304 from this and the cache alone.
SESSION_TRADER = "cabinet_trader"
LOGIN_URL = "/trader/login/"
TWO_FACTOR_URL = "/trader/2fa/"

# (name, path, label): the cabinet's navigation, in order.
NAV = [
    ("orders", "/trader/", _("Orders")),
    ("requisites", "/trader/requisites/", _("Requisites")),
    ("balance", "/trader/balance/", _("Balance")),
    ("stats", "/trader/stats/", _("Statistics")),
    ("devices", "/trader/devices/", _("Devices")),
]


def cabinet_language(request) -> str:
    asked = (request.GET.get("lang") or "").lower()
    if asked in LANGUAGES:
        return asked
    cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "").lower()
    return cookie if cookie in LANGUAGES else "ru"


def in_cabinet_language(view):
    """Run the view and render its page in the cabinet's language and the operators'
    time zone (the one its pages name); a `?lang=` choice is kept in the language
    cookie."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        lang = cabinet_language(request)
        request.cabinet_lang = lang
        zone = ZoneInfo(settings.OPERATOR_TIME_ZONE)
        with translation.override(lang), timezone.override(zone):
            response = view(request, *args, **kwargs)
        response.headers.setdefault("Content-Language", lang)
        if (request.GET.get("lang") or "").lower() in LANGUAGES:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME, lang, max_age=365 * 24 * 3600, samesite="Lax"
            )
        return response

    return wrapped


def signed_in_trader(user) -> Trader | None:
    """The active trader a signed-in user is linked to, else None."""
    if not user.is_authenticated:
        return None
    return Trader.objects.filter(user=user, is_active=True).first()


def needs_second_factor(user) -> bool:
    return settings.TRADER_2FA and not user.is_verified()


def forbidden(request):
    return cabinet_page(request, "traders/forbidden.html", {}, status=403)


def trader_required(view):
    """Only a signed-in user linked to an active trader (with its second factor when
    TRADER_2FA is on) reaches the view, with `request.trader` set; anyone else is
    sent to sign in, and staff without a trader get 403."""

    @in_cabinet_language
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        user = request.user
        back = urlencode({"next": request.get_full_path()})
        if not user.is_authenticated:
            return redirect(f"{LOGIN_URL}?{back}")
        trader = signed_in_trader(user)
        if trader is None:
            return forbidden(request)
        if needs_second_factor(user):
            return redirect(f"{TWO_FACTOR_URL}?{back}")
        request.trader = trader
        if request.session.get(SESSION_TRADER) != str(trader.pk):
            request.session[SESSION_TRADER] = str(trader.pk)
        try:
            return view(request, *args, **kwargs)
        except Http404:  # an id that names nothing of this trader's
            return page_missing(request)

    return wrapped


def page_missing(request):
    """The cabinet's own 404 page, in its language, DEBUG or not (Django's pages for a
    404 are English)."""
    return cabinet_page(request, "traders/missing.html", {}, status=404)


def cabinet_page(request, template: str, context: dict, *, status: int = 200, active: str = ""):
    """A page of the cabinet in its language, with the navigation and the switch to
    the other language."""
    lang = getattr(request, "cabinet_lang", None) or cabinet_language(request)
    other = "en" if lang == "ru" else "ru"
    query = request.GET.copy()
    query["lang"] = other
    context = {
        "lang": lang,
        "other_lang": other,
        "other_lang_name": {"ru": "Русский", "en": "English"}[other],
        "other_lang_url": f"{request.path}?{query.urlencode()}",
        "nav": [(name, path, label, name == active) for name, path, label in NAV],
        "trader": getattr(request, "trader", None),
        **context,
    }
    with translation.override(lang):
        return render(request, template, context, status=status)
