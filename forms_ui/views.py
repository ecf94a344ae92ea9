"""The payer's pages. Server-rendered and complete without JavaScript; the script
only adds countdowns, copy buttons and status polling."""

import math

from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.http import require_GET, require_POST

from paymentsvc.error_codes import ErrorCode
from paymentsvc.errors import ServiceError, error_response

from . import offers, services
from .models import FormSession, SessionState
from .selectors import payer_banks
from .texts import TEXTS, language_for

SUCCESS_COUNTDOWN_SECONDS = 5
FAILURE_STATES = {SessionState.REQUISITES_NOT_FOUND, SessionState.EXPIRED, SessionState.CANCELLED}
CLOSED_STATES = FAILURE_STATES | {SessionState.COMPLETED}


def _session_or_none(session_id) -> FormSession | None:
    if not session_id or len(session_id) > 64:
        return None
    if not FormSession.objects.filter(pk=session_id).exists():
        return None
    return services.session_refresh(session_id=session_id)


def _missing(request):
    lang = language_for(request)
    return render(request, "forms_ui/missing.html", {"t": TEXTS[lang], "lang": lang}, status=404)


def _page_url(session_id: str, lang: str) -> str:
    return reverse("form-page") + "?" + urlencode({"session_id": session_id, "lang": lang})


def _countdown(session: FormSession) -> int:
    """Seconds left before the redirect; the countdown starts when the success screen
    is first shown, so a reload carries on where it was."""
    shown_at = services.session_success_shown(session=session)
    elapsed = (timezone.now() - shown_at).total_seconds()
    return max(0, math.ceil(SUCCESS_COUNTDOWN_SECONDS - elapsed))


@require_GET
def form_page(request):
    session = _session_or_none(request.GET.get("session_id"))
    if session is None:
        return _missing(request)
    lang = language_for(request)
    order = session.order
    method = order.method if order else session.method
    context = {
        "t": TEXTS[lang],
        "lang": lang,
        "other_lang": "en" if lang == "ru" else "ru",
        "session": session,
        "state": session.state,
        "order": order,
        "method": method,
        "banks": payer_banks(session=session, order=order, lang=lang) if order else [],
        "amount": order.amount if order else session.amount,
        "methods": offers.methods_offered(terminal=session.terminal, amount=session.amount)
        if session.state == SessionState.METHOD_SELECTION
        else [],
        "show_return": bool(session.return_url) and session.state not in CLOSED_STATES,
        "failure": session.state in FAILURE_STATES,
        "countdown": _countdown(session) if session.state == SessionState.COMPLETED else None,
        "poll": session.state not in CLOSED_STATES,
    }
    return render(request, "forms_ui/session.html", context)


@require_GET
def form_status(request):
    session = _session_or_none(request.GET.get("session_id"))
    if session is None:
        return error_response(ErrorCode.NOT_FOUND)
    data = {
        "state": session.state,
        "order_status": session.order.shown_status if session.order_id else None,
    }
    response = JsonResponse(data)
    response["Cache-Control"] = "no-store"
    return response


def _post_action(request, action):
    session = _session_or_none(request.POST.get("session_id"))
    if session is None:
        return _missing(request)
    lang = language_for(request)
    try:
        action(session)
    except ServiceError:
        pass  # the page shows the state the session is in, which explains itself
    return redirect(_page_url(session.pk, lang))


@require_POST
def form_choose(request):
    method_id = request.POST.get("method_id", "")
    return _post_action(
        request, lambda s: services.session_choose_method(session_id=s.pk, method_id=method_id)
    )


@require_POST
def form_paid(request):
    return _post_action(request, lambda s: services.session_mark_paid(session_id=s.pk))


def csrf_failure(request, reason=""):
    """A form post whose CSRF token is missing or stale (cookies cleared, a page left
    open for days) gets the form's own page with a way back, not Django's."""
    if not request.path.startswith(reverse("form-page")):
        return django_csrf_failure(request, reason=reason)
    lang = language_for(request)
    session_id = request.POST.get("session_id", "")
    page_url = None
    if 0 < len(session_id) <= 64 and FormSession.objects.filter(pk=session_id).exists():
        page_url = _page_url(session_id, lang)
    context = {"t": TEXTS[lang], "lang": lang, "page_url": page_url}
    return render(request, "forms_ui/stale.html", context, status=403)
