"""The payer's pages. Server-rendered and complete without JavaScript; the script
only adds countdowns, copy buttons and status polling."""

import math

from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import urlencode
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from core.error_codes import ErrorCode
from core.errors import ServiceError, error_response
from core.uploads import UploadSizeLimit
from orders.receipts import MAX_RECEIPT_BYTES, MAX_RECEIPTS, ReceiptRefused, receipt_attach

from . import offers, recovery, services
from .models import FormSession, SessionState
from .qr import qr_svg
from .selectors import payer_banks
from .texts import TEXTS, language_for, remember_language

SUCCESS_COUNTDOWN_SECONDS = 5
FAILURE_STATES = {SessionState.REQUISITES_NOT_FOUND, SessionState.EXPIRED, SessionState.CANCELLED}
CLOSED_STATES = FAILURE_STATES | {SessionState.COMPLETED}


def _session_or_none(session_id) -> FormSession | None:
    # A NUL cannot be in an id and must not reach the database (PostgreSQL refuses it).
    if not session_id or len(session_id) > 64 or "\x00" in session_id:
        return None
    if not FormSession.objects.filter(pk=session_id).exists():
        return None
    return services.session_refresh(session_id=session_id)


LANGUAGE_NAMES = {"ru": "Русский", "en": "English"}
RECEIPT_STATES = {SessionState.REQUISITES_FOUND, SessionState.PAYMENT_CONFIRMATION}


def _page(request, template: str, context: dict, *, lang: str, status: int = 200):
    """Render one of the payer's pages in `lang` and keep a ?lang= choice."""
    with translation.override(lang):
        context = {"t": TEXTS, "lang": lang, **context}
        response = render(request, template, context, status=status)
    response["Content-Language"] = lang
    response.setdefault("Vary", "Cookie, Accept-Language")
    return remember_language(request, response, lang)


def _missing(request):
    return _page(request, "forms_ui/missing.html", {}, lang=language_for(request), status=404)


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
    return _session_page(request, session)


def _session_page(request, session: FormSession, *, receipt_error: str = "", status: int = 200):
    lang = language_for(request)
    order = session.order
    method = order.method if order else session.method
    state = session.state
    methods = []
    if state == SessionState.METHOD_SELECTION:
        offered = offers.methods_offered(terminal=session.terminal, amount=session.amount)
        methods = offers.methods_that_can_match(offered, terminal=session.terminal)
    receipts = list(order.receipts.all()) if order else []
    context = {
        "other_lang": "en" if lang == "ru" else "ru",
        "other_lang_name": LANGUAGE_NAMES["en" if lang == "ru" else "ru"],
        "session": session,
        "state": state,
        "order": order,
        "method": method,
        "method_name": method.payer_name(lang) if method else "",
        "banks": payer_banks(session=session, order=order, lang=lang) if order else [],
        "amount": order.amount if order else session.amount,
        "methods": [(m, m.payer_name(lang)) for m in methods],
        "show_return": bool(session.return_url) and state not in CLOSED_STATES,
        # A final screen keeps a way back to the shop (not the return-link hook, which
        # the contract keeps only until the deal is closed).
        "back_url": session.return_url or session.redirect_url,
        "failure": state in FAILURE_STATES,
        # "I have paid" was pressed before the order ran out.
        "paid": session.payment_confirmation_starts_at is not None,
        "can_choose_again": recovery.session_can_choose_again(session),
        "countdown": _countdown(session) if state == SessionState.COMPLETED else None,
        "poll": state not in CLOSED_STATES,
        "receipts": receipts,
        "receipts_open": state in RECEIPT_STATES
        and order is not None
        and order.takes_receipts
        and len(receipts) < MAX_RECEIPTS,
        "receipt_error": receipt_error,
        "qr": "",
    }
    with translation.override(lang):
        context["receipt_error_text"] = (
            str(TEXTS.get(f"receipt_{receipt_error}", TEXTS["receipt_type"]))
            if receipt_error
            else ""
        )
        context["private_recipient"] = str(TEXTS["private_recipient"]) % {
            "merchant": session.terminal.name
        }
        context["paid_expired_support"] = str(TEXTS["paid_expired_support"]) % {
            "order": session.client_order_id
        }
        # The requisites' screen, before and after "I have paid" (both show them): a
        # payer on a computer may still move to the phone, to pay or to send a receipt.
        if state in (SessionState.REQUISITES_FOUND, SessionState.PAYMENT_CONFIRMATION):
            context["qr"] = qr_svg(services.form_url(session), label=str(TEXTS["qr_label"]))
    return _page(request, "forms_ui/session.html", context, lang=lang, status=status)


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
    if "\x00" in method_id:
        method_id = ""  # names no method: refused like any unknown one
    return _post_action(
        request, lambda s: services.session_choose_method(session_id=s.pk, method_id=method_id)
    )


@require_POST
def form_paid(request):
    return _post_action(request, lambda s: services.session_mark_paid(session_id=s.pk))


@require_POST
def form_choose_again(request):
    return _post_action(request, lambda s: recovery.session_choose_again(session_id=s.pk))


@csrf_exempt  # checked below, once the size-bounding upload handler is in place
@require_POST
def form_receipt(request):
    """A receipt from the payer: a plain multipart form, so it works without script.
    A refused file shows the page again with the reason; nothing is stored. A file
    over the limit costs at most the limit of temporary disk."""
    request.upload_handlers.insert(0, UploadSizeLimit(request, limit=MAX_RECEIPT_BYTES))
    return _receipt_post(request)


@csrf_protect
def _receipt_post(request):
    session = _session_or_none(request.POST.get("session_id"))
    if session is None:
        return _missing(request)
    upload = request.FILES.get("receipt")
    if session.state not in RECEIPT_STATES or session.order_id is None:
        # The payment closed meanwhile: the page shows what happened to it.
        return redirect(_page_url(session.pk, language_for(request)))
    try:
        receipt_attach(order_id=session.order_id, upload=upload)
    except ReceiptRefused as exc:
        return _session_page(request, session, receipt_error=exc.reason, status=exc.status)
    return redirect(_page_url(session.pk, language_for(request)))


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
    return _page(request, "forms_ui/stale.html", {"page_url": page_url}, lang=lang, status=403)
