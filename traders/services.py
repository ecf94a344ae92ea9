"""What a trader does, through the orders services: confirm or decline an order (a
Buy's confirm may state another amount received), switch a requisite on or off."""

from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from core.amounts import AMOUNT_WORDS, AmountError, paid_amount_problem, read_typed_amount
from core.errors import InvalidRequest
from finance.models import Side
from orders.audited import order_act_audited
from orders.models import Order, Requisite, Trader
from orders.services import order_cancel, order_confirm
from orders.services.requisite_state import requisite_switch


def _actor(trader: Trader) -> str:
    return f"trader:{trader.pk}"


class PaidAmountInvalid(InvalidRequest):
    """The amount received as typed cannot be taken; its message says why."""


def paid_amount_parse(raw: str, *, amount: Decimal) -> Decimal:
    """The amount a trader says arrived on a Buy, as typed (`3100.50` or `3100,50`):
    read by core.amounts' rules (read_typed_amount, paid_amount_problem), said in the
    page's words."""
    if not (raw or "").strip():
        raise PaidAmountInvalid(str(_("Enter the amount received.")))
    try:
        value = read_typed_amount(raw)
    except AmountError as error:
        raise PaidAmountInvalid(str(AMOUNT_WORDS[error.code])) from None
    if paid_amount_problem(value, amount=amount):
        raise PaidAmountInvalid(str(_("The amount can be at most twice the order's amount.")))
    return value


def trader_order_confirm(
    *, trader: Trader, order: Order, paid_amount: Decimal | None = None, request=None
) -> Order:
    """The trader's confirm, with its audit entry; on a Buy, `paid_amount` (already
    parsed) when another amount arrived. It is passed on only when given."""
    if paid_amount is not None and order.side != Side.BUY:
        message = str(_("Only a Buy's confirmation takes another amount."))
        raise PaidAmountInvalid(message, errors={"paid_amount": [message]})
    extra = {} if paid_amount is None else {"paid_amount": paid_amount}
    return order_act_audited(
        service=lambda **kw: order_confirm(**kw, **extra),
        order_id=order.pk,
        actor=_actor(trader),
        actor_kind="trader",
        actor_id=trader.pk,
        action="order.confirm",
        request=request,
    )


def trader_order_decline(*, trader: Trader, order: Order, request=None) -> Order:
    return order_act_audited(
        service=order_cancel,
        order_id=order.pk,
        actor=_actor(trader),
        actor_kind="trader",
        actor_id=trader.pk,
        action="order.decline",
        request=request,
    )


def trader_requisite_switch(*, trader: Trader, requisite_id, on: bool) -> Requisite:
    """On or off by its trader; another trader's requisite is not found (404), one an
    operator switched off stays off (409 `disabled_by_operator`)."""
    return requisite_switch(
        requisite_id=requisite_id, on=on, by_operator=False, trader_id=trader.pk
    )
