"""The payer's pages. Server-rendered and complete without JavaScript; the script
only adds countdowns, copy buttons and status polling."""

from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from paymentsvc.errors import ServiceError

from . import services
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


def _page_url(session: FormSession, lang: str) -> str:
    return reverse("form-page") + "?" + urlencode({"session_id": session.pk, "lang": lang})


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
        "methods": services.methods_offered(terminal=session.terminal)
        if session.state == SessionState.METHOD_SELECTION
        else [],
        "show_return": bool(session.return_url) and session.state not in CLOSED_STATES,
        "failure": session.state in FAILURE_STATES,
        "countdown": SUCCESS_COUNTDOWN_SECONDS,
        "poll": session.state not in CLOSED_STATES,
    }
    return render(request, "forms_ui/session.html", context)


@require_GET
def form_status(request):
    session = _session_or_none(request.GET.get("session_id"))
    if session is None:
        return JsonResponse(
            {"success": False, "message": "Not found", "code": "not_found"}, status=404
        )
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
    return redirect(_page_url(session, lang))


@require_POST
def form_choose(request):
    method_id = request.POST.get("method_id", "")
    return _post_action(
        request, lambda s: services.session_choose_method(session_id=s.pk, method_id=method_id)
    )


@require_POST
def form_paid(request):
    return _post_action(request, lambda s: services.session_mark_paid(session_id=s.pk))
