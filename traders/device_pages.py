"""The cabinet's devices page (traders.md §20): the trader's phones, online or not,
the requisites each is bound to; adding one (its token shown once, as text and as a
QR code for the phone app to scan), re-binding, removing; the notifications they
sent with their status, and attaching an unmatched one to a Pending Buy."""

import segno
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.db import DbNow
from core.errors import ServiceError
from core.formats import holds_nul, parse_uuid
from finance.models import Side
from orders.models import Order, OrderStatus, Requisite

from .access import cabinet_page, trader_required
from .devices import device_add, device_bind, device_remove
from .models import BankNotification, Device
from .notifications import ATTACHABLE, notification_attach

NOTIFICATIONS_SHOWN = 50
ORDERS_OFFERED = 100


def _requisites(trader):
    return list(Requisite.objects.filter(trader=trader).select_related("method").order_by("id"))


def _chosen_requisites(request, trader):
    ids = {parse_uuid(v) for v in request.POST.getlist("requisites")} - {None}
    return [r for r in _requisites(trader) if r.pk in ids]


def _device(request, device_id) -> Device:
    device_pk = parse_uuid(device_id)
    device = (
        Device.objects.filter(pk=device_pk, trader=request.trader, revoked_at__isnull=True).first()
        if device_pk
        else None
    )
    if device is None:
        raise Http404
    return device


def _page(request, *, token: str = "", new_device: Device | None = None, status: int = 200):
    trader = request.trader
    devices = list(
        Device.objects.filter(trader=trader, revoked_at__isnull=True).prefetch_related(
            "requisites__method"
        )
    )
    notifications = list(
        BankNotification.objects.filter(device__trader=trader)
        .select_related("device", "order")
        .order_by("-created_at")[:NOTIFICATIONS_SHOWN]
    )
    open_buys = list(
        Order.objects.filter(
            trader=trader, side=Side.BUY, status=OrderStatus.PENDING, expires_at__gt=DbNow()
        )
        .select_related("requisite__method")
        .order_by("-created_at")[:ORDERS_OFFERED]
    )
    context = {
        "devices": devices,
        "requisites": _requisites(trader),
        "notifications": notifications,
        "attachable": {str(n) for n in ATTACHABLE},
        "open_buys": open_buys,
        "token": token,
        "new_device": new_device,
        "token_qr": mark_safe(segno.make(token, error="m").svg_inline(scale=4)) if token else "",  # noqa: S308 - segno's own SVG
    }
    response = cabinet_page(
        request, "traders/devices.html", context, status=status, active="devices"
    )
    if token:
        response["Cache-Control"] = "no-store"
    return response


@require_GET
@trader_required
def devices_page(request):
    return _page(request)


@require_POST
@trader_required
def device_add_view(request):
    name = request.POST.get("name", "").strip()[:100]
    if not name:
        messages.error(request, _("Give the device a name."))
        return redirect("trader-devices")
    if holds_nul(name):  # the database cannot store one (PostgreSQL refuses it)
        messages.error(request, _("A device's name cannot hold a NUL character."))
        return redirect("trader-devices")
    device, raw = device_add(
        trader=request.trader, name=name, requisites=_chosen_requisites(request, request.trader)
    )
    # The token is shown on this answer only: it is stored as its digest alone.
    return _page(request, token=raw, new_device=device)


@require_POST
@trader_required
def device_bind_view(request, device_id):
    device = _device(request, device_id)
    device_bind(device=device, requisites=_chosen_requisites(request, request.trader))
    messages.success(request, _("The device's requisites are saved."))
    return redirect("trader-devices")


@require_POST
@trader_required
def device_remove_view(request, device_id):
    device = _device(request, device_id)
    device_remove(device=device)
    messages.success(request, _("The device is removed: its token no longer works."))
    return redirect("trader-devices")


@require_POST
@trader_required
def notification_attach_view(request, notification_id):
    notification_pk = parse_uuid(notification_id)
    notification = (
        BankNotification.objects.filter(pk=notification_pk, device__trader=request.trader)
        .select_related("device__trader")
        .first()
        if notification_pk
        else None
    )
    if notification is None:
        raise Http404
    try:
        notification_attach(
            notification=notification,
            order_id=request.POST.get("order_id", ""),
            actor=f"trader:{request.trader.pk}",
        )
    except ServiceError as error:
        messages.error(
            request, _("The notification was not attached: %(why)s") % {"why": error.message}
        )
    else:
        messages.success(request, _("The notification is attached and the order confirmed."))
    return redirect("trader-devices")
