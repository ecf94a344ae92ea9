"""The cabinet's orders page: the trader's Pending orders, kept fresh by a poll that
costs a 304 while nothing changed, and confirm / decline behind a second tap."""

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.errors import NotFound, ServiceError
from orders import selectors as order_selectors
from orders.receipts import receipt_response
from orders.services import OrderNotPending

from . import selectors, services
from .access import cabinet_page, trader_required
from .live import orders_version
from .templatetags.cabinet import rub


def _open_orders(trader):
    return list(selectors.trader_open_orders(trader=trader).prefetch_related("receipts"))


def _etag(request) -> str:
    return f'"{orders_version(request.trader.pk)}-{request.cabinet_lang}"'


def _ask_texts():
    return {
        ("confirm", "Buy"): _(
            "Did %s arrive on your requisite? Confirm only after checking your bank."
        ),
        ("confirm", "Sell"): _("Have you sent %s to the customer?"),
        ("decline", "Buy"): _("Decline this payment of %s?"),
        ("decline", "Sell"): _("Decline this payout of %s?"),
    }


@require_GET
@trader_required
def orders_page(request):
    """The list; with `?ask=confirm|decline&order=<id>` (the buttons' links, which the
    script opens in place) the second question about that order as well."""
    etag = _etag(request)  # read before the list: a change meanwhile shows at the next poll
    orders = _open_orders(request.trader)
    context = {"orders": orders, "etag": etag}
    ask, order_id = request.GET.get("ask"), request.GET.get("order")
    if ask in ("confirm", "decline") and order_id:
        asked = next((o for o in orders if str(o.id) == order_id), None)
        if asked is None:
            _order(request, order_id)  # 404 for another trader's order
            messages.warning(request, _("This order is no longer waiting: nothing was changed."))
        else:
            shown = rub(asked.amount, request.cabinet_lang)
            context.update(ask=ask, asked=asked, ask_text=_ask_texts()[(ask, asked.side)] % shown)
    return cabinet_page(request, "traders/orders.html", context, active="orders")


@require_GET
@trader_required
def orders_live(request):
    """The list alone, for the page's poll: 304 while the trader's version stands."""
    etag = _etag(request)
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        context = {"orders": _open_orders(request.trader), "lang": request.cabinet_lang}
        response = HttpResponse(render_to_string("traders/_orders.html", context, request))
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache, private"
    return response


def _order(request, order_id):
    try:
        return order_selectors.order_of_trader(trader=request.trader, order_id=order_id)
    except NotFound:
        raise Http404 from None


@require_POST
@trader_required
def order_confirm(request, order_id):
    order = _order(request, order_id)
    raw = request.POST.get("paid_amount", "").strip()
    try:
        paid = services.paid_amount_parse(raw, amount=order.amount) if raw else None
        services.trader_order_confirm(trader=request.trader, order=order, paid_amount=paid)
    except services.PaidAmountInvalid as error:
        messages.error(request, error.message)
    except OrderNotPending:
        messages.warning(request, _("This order is no longer waiting: nothing was changed."))
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Order confirmed."))
    return redirect("trader-orders")


@require_POST
@trader_required
def order_decline(request, order_id):
    order = _order(request, order_id)
    try:
        services.trader_order_decline(trader=request.trader, order=order)
    except OrderNotPending:
        messages.warning(request, _("This order is no longer waiting: nothing was changed."))
    else:
        messages.success(request, _("Order declined."))
    return redirect("trader-orders")


@require_GET
@trader_required
def order_receipt(request, order_id, receipt_id):
    order = _order(request, order_id)
    try:
        receipt = order_selectors.receipt_of_order(order=order, receipt_id=receipt_id)
    except NotFound:
        raise Http404 from None
    return receipt_response(receipt)
