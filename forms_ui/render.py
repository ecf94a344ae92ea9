"""Form sessions as merchants see them in the API."""

from core.formats import iso_utc
from core.money import money_str

from .models import FormSession
from .services import form_url, shown_state


def render_created(session: FormSession) -> dict:
    return {
        "success": True,
        "message": "Form session created",
        "form_data": {
            "session_id": session.pk,
            "form_url": form_url(session),
            "order_data": {
                "client_order_id": session.client_order_id,
                "order_side": session.order_side,
                "payment_method_id": str(session.method_id) if session.button_name else None,
                "amount": money_str(session.amount),
                "customer_bank": session.customer_bank,
                "unique_amount": session.unique_amount,
            },
            "support_url": session.support_url,
            "redirect_url": session.redirect_url,
            "return_url": session.return_url,
        },
    }


def render_item(session: FormSession) -> dict:
    method = session.method
    return {
        "session_id": session.pk,
        "ip_address": session.ip_address,
        "client_order_id": session.client_order_id,
        "terminal_id": str(session.terminal_id),
        "order_side": session.order_side,
        "amount": money_str(session.order.amount if session.order_id else session.amount),
        "payment_method_type": method.method_type if method else None,
        "nspk_code": method.nspk_code if method else None,
        "order_id": str(session.order_id) if session.order_id else None,
        "redirect_url": session.redirect_url,
        "support_url": session.support_url,
        "return_url": session.return_url,
        "search_count": session.search_count,
        "merchant_name": session.terminal.name,
        "currency": session.currency,
        "selection": session.selection,
        "created_at": iso_utc(session.created_at),
        "updated_at": iso_utc(session.updated_at),
        "unique_amount": session.unique_amount,
        "user_id": session.user_id,
        "state": shown_state(session),
        "requisites_request_starts_at": iso_utc(session.requisites_request_starts_at),
        "requisites_request_expires_at": iso_utc(session.requisites_request_expires_at),
        "payment_confirmation_starts_at": iso_utc(session.payment_confirmation_starts_at),
        "payment_confirmation_expires_at": iso_utc(session.payment_confirmation_expires_at),
        "expires_at": iso_utc(session.expires_at),
    }
