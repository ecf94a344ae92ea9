"""Reads for the payer's page and the merchants' form search."""

import logging
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from core.db import DbNow
from core.formats import parse_uuid
from finance.models import PaymentMethod, Terminal
from finance.services import method_deeplink
from orders.models import Order

from . import services
from .models import FINAL_SESSION_STATES, FormSession

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PayerBank:
    name: str
    hint: str
    link: str | None


def _banks_of_type(*, order: Order, **filters) -> list[PaymentMethod]:
    return list(
        PaymentMethod.objects.filter(
            terminals__terminal_id=order.terminal_id,
            terminals__enabled=True,
            is_active=True,
            is_aggregate=False,
            method_type=order.method.method_type,
            currency=order.currency,
            **filters,
        )
        .exclude(bank_slug="")
        .order_by("name")
    )


def payer_banks(*, session: FormSession, order: Order, lang: str) -> list[PayerBank]:
    """The bank apps the payer may pay from, each with its hint and deeplink.

    A transfer by an instant-payment method can leave any bank's app, so an order on
    the aggregate method lists every bank; a preselected button, a customer_bank or a
    bank the payer picked narrows the list to that one bank.
    """
    if session.button_name and session.method is not None:
        methods = [session.method]
    elif order.customer_bank:
        methods = _banks_of_type(order=order, bank_slug=order.customer_bank) or [order.method]
    elif not order.initial_method.is_aggregate:
        methods = [order.method]
    else:
        methods = _banks_of_type(order=order)
    banks = []
    for method in methods:
        hint = method.hint_en if lang == "en" else method.hint_ru
        link = method_deeplink(
            method, account=order.holder_account, amount=order.amount, order_id=order.pk
        )
        if hint or link:
            banks.append(PayerBank(name=method.payer_name(lang), hint=hint, link=link))
    return banks


def session_search(
    *,
    terminal: Terminal,
    order_id: str | None = None,
    terminal_id: str | None = None,
    client_order_id: str | None = None,
    session_id: str | None = None,
    currency: str | None = None,
    state: str | None = None,
) -> QuerySet:
    qs = FormSession.objects.filter(terminal=terminal)
    if order_id is not None:
        order_uuid = parse_uuid(order_id)
        qs = qs.filter(order_id=order_uuid) if order_uuid else qs.none()
    if terminal_id is not None and parse_uuid(terminal_id) != terminal.pk:
        qs = qs.none()
    if client_order_id is not None:
        qs = qs.filter(client_order_id=client_order_id)
    if session_id is not None:
        qs = qs.filter(pk=session_id)
    if currency is not None:
        qs = qs.filter(currency=currency)
    if state is not None:
        # A read writes nothing: a session not yet in a final state is judged by the
        # state it shows, as the page and the items do.
        live = (
            qs.exclude(state__in=FINAL_SESSION_STATES)
            .select_related("order")
            .annotate(db_clock=DbNow())
        )
        showing = [s.pk for s in live.iterator() if services.shown_state(s) == state]
        qs = qs.filter(Q(state=state, state__in=FINAL_SESSION_STATES) | Q(pk__in=showing))
    return (
        qs.select_related("terminal", "method", "order")
        .annotate(db_clock=DbNow())
        .order_by("-created_at", "-pk")
    )
