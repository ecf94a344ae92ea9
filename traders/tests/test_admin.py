"""Devices and notifications in the admin: an operator adds a device and sees its
token once, removes one (revoked at once), lists notifications per device and per
requisite with their status, and attaches an unmatched one to an order."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from orders.models import Order
from traders.devices import device_for_token
from traders.models import BankNotification, Device

from .setup import ground, sber_sms, send

pytestmark = pytest.mark.django_db


@pytest.fixture
def g():
    return ground()


@pytest.fixture
def operator():
    call_command("operators_group", verbosity=0)
    user = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    user.groups.set(Group.objects.filter(name="Operators"))
    client = Client()
    client.force_login(user)
    return client


def test_an_operator_adds_a_device_and_sees_its_token_once(g, operator):
    response = operator.post(
        "/admin/traders/device/add/",
        {"trader": str(g.trader.pk), "name": "Galaxy", "requisites": [str(g.sber_requisite.pk)]},
        follow=True,
    )
    assert response.status_code == 200
    page = response.content.decode()
    token = re.search(r"dev_[A-Za-z0-9_-]{32,}", page).group(0)
    device = device_for_token(token)
    assert device.name == "Galaxy"
    assert list(device.requisites.all()) == [g.sber_requisite]
    again = operator.get(f"/admin/traders/device/{device.pk}/change/").content.decode()
    assert token not in again
    assert token[:8] in again


def test_a_device_cannot_be_bound_to_another_traders_requisite(g, operator):
    other = ground()
    response = operator.post(
        "/admin/traders/device/add/",
        {"trader": str(g.trader.pk), "name": "X", "requisites": [str(other.sber_requisite.pk)]},
    )
    assert response.status_code == 200
    assert Device.objects.filter(name="X").count() == 0


def test_removing_devices_revokes_them(g, operator):
    response = operator.post(
        "/admin/traders/device/",
        {"action": "remove_devices", "_selected_action": [str(g.device.pk)]},
    )
    assert response.status_code == 302
    assert device_for_token(g.token) is None
    assert send(g.token, text=sber_sms("5")).status_code == 401


def test_the_lists_show_devices_per_trader_and_notifications_per_device_and_requisite(g, operator):
    send(g.token, text=sber_sms("777"))
    devices = operator.get(f"/admin/traders/device/?trader__id__exact={g.trader.pk}")
    assert g.device.name in devices.content.decode()
    for query in (f"device__id__exact={g.device.pk}", f"requisite={g.sber_requisite.pk}"):
        page = operator.get(f"/admin/traders/banknotification/?{query}").content.decode()
        assert "777.00" in page or "777,00" in page
    unbound = operator.get(
        f"/admin/traders/banknotification/?requisite={ground().sber_requisite.pk}"
    )
    assert "777.00" not in unbound.content.decode()
    assert "777,00" not in unbound.content.decode()
    trader_page = operator.get(f"/admin/orders/trader/{g.trader.pk}/change/").content.decode()
    assert g.device.name in trader_page


def test_an_operator_attaches_an_unmatched_notification_to_an_order(g, operator):
    order = g.buy("1000.00")
    send(g.token, text=sber_sms("1000.50"))
    notification = BankNotification.objects.get()
    assert notification.status == "unmatched"
    url = f"/admin/traders/banknotification/{notification.pk}/attach/"
    assert operator.get(url).status_code == 200
    response = operator.post(url, {"order_id": str(order.pk)})
    assert response.status_code == 302
    order.refresh_from_db()
    assert (order.status, order.closed_by, order.paid_amount) == (
        "Completed",
        "operator:op",
        notification.amount,
    )
    notification.refresh_from_db()
    assert (notification.status, notification.order_id) == ("matched", order.pk)
    assert notification.attached_by == "operator:op"


def test_attaching_to_another_traders_order_is_refused(g, operator):
    stranger = ground()
    order = stranger.buy("1000.00")
    send(g.token, text=sber_sms("1000"))
    notification = BankNotification.objects.get()
    response = operator.post(
        f"/admin/traders/banknotification/{notification.pk}/attach/", {"order_id": str(order.pk)}
    )
    assert response.status_code == 200
    assert Order.objects.get(pk=order.pk).status == "Pending"


def test_the_device_pages_speak_russian(g, operator):
    send(g.token, text=sber_sms("5"))
    page = operator.get("/admin/traders/banknotification/", HTTP_ACCEPT_LANGUAGE="ru")
    text = page.content.decode()
    assert "банковские уведомления" in text.lower()
    assert "не сопоставлено" in text
