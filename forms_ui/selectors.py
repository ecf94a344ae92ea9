"""Reads for the payer's page."""

import logging
from dataclasses import dataclass

from finance.models import PaymentMethod
from finance.services import method_deeplink
from orders.models import Order

from .models import FormSession

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
