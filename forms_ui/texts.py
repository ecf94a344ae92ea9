"""The payer's page strings, through Django's translation machinery.

The msgids are English; `locale/ru` translates them (Russian is the page's default),
`locale/en` is there so an English page never falls back to anything else. The
page's language comes from `?lang=`, then the language cookie, then Accept-Language,
else Russian (docs/form.md#languages)."""

from django.conf import settings
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from core.uploads import MAX_UPLOAD_MB
from orders.receipts import MAX_RECEIPTS

PAGE_LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"

TEXTS = {
    "title": _("Payment"),
    "merchant": _("Merchant"),
    "amount": _("Amount"),
    "choose_method": _("Choose a payment method"),
    "searching": _("Finding payment details…"),
    "searching_hint": _("This usually takes a few seconds. Please keep this page open."),
    "searching_progress": _("Searching for a recipient, attempt"),
    "pay_to": _("Transfer the exact amount to these details"),
    "account": _("Pay to"),
    "holder": _("Recipient"),
    "private_recipient": _(
        "The money goes to a private person who accepts payments for %(merchant)s; "
        "the shop is credited as soon as the transfer arrives."
    ),
    "bank": _("Bank"),
    "copy": _("Copy"),
    "copy_account": _("Copy the account"),
    "copy_amount": _("Copy the amount"),
    "copied": _("Copied"),
    "time_left": _("Time left"),
    "open_bank": _("Open the bank app"),
    "pay_from": _("Pay from your bank's app"),
    "finish_in": _("You can close this page in"),
    "can_close": _("You can close this page now."),
    "paid": _("I have paid"),
    "waiting": _("Checking your payment"),
    "waiting_hint": _("This page updates by itself as soon as the transfer is confirmed."),
    "success": _("Payment successful"),
    "redirect_in": _("Returning to the shop in"),
    "seconds": _("s"),
    "go_now": _("Return now"),
    "pause": _("Stay on this page"),
    "paused": _("The return to the shop is paused."),
    "paid_at": _("Time"),
    "moscow_time": _("Moscow time"),
    "method": _("Method"),
    "not_found": _("No payment details available"),
    "not_found_hint": _("Please try later, another amount or another payment method."),
    # A method the shop chose (a button): the payer has no other one to pick here.
    "not_found_hint_button": _("Please try again a little later."),
    "choose_another": _("Choose another method"),
    "expired": _("The time to pay has run out"),
    "expired_hint": _("Please start a new payment at the shop."),
    # The order ran out after the payer said they had paid: a second payment must not
    # be suggested (the first one may still arrive).
    "paid_expired": _("Your payment is being checked"),
    "paid_expired_hint": _(
        "The time for the transfer has run out, but a payment you have already made will "
        "be found and credited. Please do not pay again."
    ),
    "paid_expired_support": _(
        "If it has not been credited within an hour, contact the shop's support and give "
        "the order number %(order)s."
    ),
    "contact_support": _("Contact support"),
    "cancelled": _("The payment was cancelled"),
    "cancelled_hint": _("If you have already sent money, please contact support."),
    "back": _("Back to the shop"),
    "support": _("Support"),
    "order": _("Order"),
    "missing_title": _("Page not found"),
    "missing_hint": _("This payment link is wrong or out of date."),
    "stale_title": _("This page is out of date"),
    "stale_hint": _("Open the payment page again and repeat what you did."),
    "reopen": _("Open the payment page"),
    "exact_amount": _(
        "Send exactly this amount in one transfer, or the payment cannot be matched."
    ),
    "receipts": _("Payment receipt"),
    "receipts_hint": format_lazy(
        _("Attach a screenshot or PDF of the transfer (up to {count} files, {megabytes} MB each)."),
        count=MAX_RECEIPTS,
        megabytes=MAX_UPLOAD_MB,
    ),
    "receipt_file": _("Receipt file"),
    "receipt_send": _("Attach the receipt"),
    "receipts_done": _("Attached"),
    "receipt_empty": _("Choose a file first."),
    "receipt_too_large": format_lazy(
        _("The file is larger than {megabytes} MB."), megabytes=MAX_UPLOAD_MB
    ),
    "receipt_type": _("Only images (PNG, JPEG…) or PDF files are accepted; this file is neither."),
    "receipt_too_many": _("You have already attached 3 files."),
    "receipt_closed": _("This payment no longer takes receipts."),
    "qr_title": _("Continue on your phone"),
    "qr_hint": _("Scan the code with the phone that has your banking app."),
    "qr_label": _("QR code of this payment page"),
    "state_changed": _("The payment status has changed."),
    # Sandbox sessions only (docs/sandbox.md).
    "sandbox_mode": _("Test mode."),
    "sandbox_banner": _("This is a sandbox payment: no real money moves."),
    "sandbox_actions": _("Sandbox: act as the trader would."),
    "sandbox_complete": _("Payment received (complete)"),
    "sandbox_decline": _("Decline the payment"),
}


def _quality(params: list[str]) -> float:
    for param in params:
        name, _sep, value = param.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


def asked_language(request) -> str | None:
    """The language the request names with ?lang= (or the form's hidden field)."""
    asked = (request.GET.get("lang") or request.POST.get("lang") or "").lower()
    return asked if asked in PAGE_LANGUAGES else None


def language_for(request) -> str:
    """?lang= wins; then the language cookie; then the language we speak that
    Accept-Language rates highest (the earlier one on a tie); else Russian."""
    asked = asked_language(request)
    if asked:
        return asked
    cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "").lower()
    if cookie in PAGE_LANGUAGES:
        return cookie
    best, best_q = DEFAULT_LANGUAGE, 0.0
    for part in request.headers.get("Accept-Language", "").split(","):
        tag, *params = part.split(";")
        lang = tag.strip().lower().split("-")[0]
        q = _quality(params)
        if lang in PAGE_LANGUAGES and q > best_q:
            best, best_q = lang, q
    return best


def remember_language(request, response, lang: str):
    """A ?lang= choice is kept in the language cookie for the next pages."""
    if asked_language(request):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            lang,
            max_age=365 * 24 * 3600,
            samesite="Lax",
            httponly=False,
        )
    return response
