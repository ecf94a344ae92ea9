"""The cabinet's pages: the trader's Pending orders (kept fresh by a poll that costs a
304 while nothing changed; confirm and decline behind a second tap), its requisites
with their switch, its statistics."""

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
from orders.services.requisite_state import DisabledByOperator

from . import selectors, services
from .access import SESSION_TRADER, cabinet_language, cabinet_page, trader_required
from .live import orders_version
from .render import render_stats
from .templatetags.cabinet import rub


def _open_orders(trader):
    return list(selectors.trader_open_orders(trader=trader).prefetch_related("receipts"))


def _etag(trader_id, lang: str) -> str:
    return f'"{orders_version(trader_id)}-{lang}"'


def _ask_texts():
    return {
        ("confirm", "Buy"): _(
            "Did {amount} arrive on your requisite? Confirm only after checking your bank."
        ),
        ("confirm", "Sell"): _("Have you sent {amount} to the customer?"),
        ("decline", "Buy"): _("Decline this payment of {amount}?"),
        ("decline", "Sell"): _("Decline this payout of {amount}?"),
    }


@require_GET
@trader_required
def orders_page(request):
    """The list; with `?ask=confirm|decline&order=<id>` (the buttons' links, which the
    script opens in place) the second question about that order as well."""
    # Read before the list: a change meanwhile shows at the next poll.
    etag = _etag(request.trader.pk, request.cabinet_lang)
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
            context.update(
                ask=ask,
                asked=asked,
                ask_text=_ask_texts()[(ask, asked.side)].replace("{amount}", shown),
            )
    return cabinet_page(request, "traders/orders.html", context, active="orders")


@require_GET
def orders_live(request):
    """The list alone, for the page's poll: 304 while the trader's version stands,
    answered from the session and the cache (no user, trader or order is read); any
    other answer goes through every check of the pages."""
    trader_id = request.session.get(SESSION_TRADER)
    if trader_id and request.headers.get("If-None-Match") == _etag(
        trader_id, cabinet_language(request)
    ):
        return _live_headers(HttpResponseNotModified(), request.headers["If-None-Match"])
    return _orders_live_list(request)


@trader_required
def _orders_live_list(request):
    etag = _etag(request.trader.pk, request.cabinet_lang)
    context = {"orders": _open_orders(request.trader), "lang": request.cabinet_lang}
    response = HttpResponse(render_to_string("traders/_orders.html", context, request))
    return _live_headers(response, etag)


def _live_headers(response, etag: str):
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


@require_GET
@trader_required
def requisites_page(request):
    figures = selectors.trader_requisites(trader=request.trader)
    return cabinet_page(
        request, "traders/requisites.html", {"requisites": figures}, active="requisites"
    )


@require_POST
@trader_required
def requisite_toggle(request, requisite_id):
    try:
        figures = selectors.requisite_figures(trader=request.trader, requisite_id=requisite_id)
    except NotFound:
        raise Http404 from None
    on = not figures.requisite.is_active
    try:
        services.trader_requisite_switch(
            trader=request.trader, requisite_id=figures.requisite.pk, on=on
        )
    except DisabledByOperator:
        messages.error(
            request,
            _("An operator switched this requisite off: only an operator can switch it on."),
        )
    else:
        messages.success(
            request, _("Requisite switched on.") if on else _("Requisite switched off.")
        )
    return redirect("trader-requisites")


@require_GET
@trader_required
def stats_page(request):
    period = request.GET.get("period")
    if period not in selectors.PERIODS:
        period = "24h"
    stats = selectors.trader_stats(trader=request.trader, period=period)
    periods = [("24h", _("24 hours")), ("7d", _("7 days")), ("30d", _("30 days"))]
    figures = render_stats(stats)  # the figures as the API writes them
    figures["conversion"] = str(figures["conversion"])
    context = {"stats": figures, "period": period, "periods": periods}
    return cabinet_page(request, "traders/stats.html", context, active="stats")
