"""/trader/devices/ over HTTP: adding a device shows its token once (text and QR),
binding requisites, removal revokes at once, notifications listed with their status,
an unmatched one attached to a Pending Buy; another trader's device is 404."""

import json
import re
from datetime import UTC, datetime

import pytest
from django.test import Client

from audit.models import AuditEntry
from orders.models import Order
from orders.tests.factories import buy_order
from traders.devices import device_add, device_for_token
from traders.models import BankNotification, Device

from .cabinet import make_cabinet

pytestmark = pytest.mark.django_db
PAGE = "/trader/devices/"


@pytest.fixture
def cab():
    return make_cabinet()


def notify(token, text, id="n-1"):
    body = {"id": id, "source": "sms", "text": text, "received_at": datetime.now(UTC).isoformat()}
    return Client().post(
        "/api/v1/device/notifications",
        json.dumps(body),
        content_type="application/json",
        headers={"X-Device-Token": token},
    )


def test_anonymous_is_sent_to_sign_in(db):
    response = Client().get(PAGE)
    assert response.status_code == 302
    assert response["Location"].startswith("/trader/login/")


def test_adding_a_device_shows_its_token_once_as_text_and_qr(cab):
    response = cab.client.post(
        f"{PAGE}add/", {"name": "Pixel 8", "requisites": [str(cab.requisite.pk)]}
    )
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    token = re.search(r'data-testid="device-token">(dev_[A-Za-z0-9_-]{32,})<', html).group(1)
    assert 'data-testid="device-token-qr"' in html and "<svg" in html
    device = device_for_token(token)
    assert (device.trader, device.name) == (cab.trader, "Pixel 8")
    assert list(device.requisites.all()) == [cab.requisite]
    again = cab.client.get(PAGE).content.decode()
    assert token not in again
    assert 'data-testid="device-token"' not in again
    assert f'data-device-id="{device.pk}"' in again


def test_a_name_with_a_nul_is_refused_on_the_page_and_nothing_is_added(cab):
    response = cab.client.post(
        f"{PAGE}add/", {"name": "a\x00b", "requisites": [str(cab.requisite.pk)]}, follow=True
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Название устройства не может содержать символ NUL." in html
    assert 'data-testid="device-token"' not in html
    assert not Device.objects.filter(trader=cab.trader).exists()


def test_a_device_is_offline_until_heard_from(cab):
    device, token = device_add(trader=cab.trader, name="Phone", requisites=[cab.requisite])
    html = cab.client.get(PAGE).content.decode()
    assert f'data-device-id="{device.pk}" data-online="false"' in html
    Client().post("/api/v1/device/heartbeat", headers={"X-Device-Token": token})
    html = cab.client.get(PAGE).content.decode()
    assert f'data-device-id="{device.pk}" data-online="true"' in html


def test_binding_and_removing(cab):
    device, token = device_add(trader=cab.trader, name="Phone", requisites=[cab.requisite])
    cab.client.post(f"{PAGE}{device.pk}/requisites/", {"requisites": [str(cab.card_requisite.pk)]})
    assert list(device.requisites.all()) == [cab.card_requisite]
    response = cab.client.post(f"{PAGE}{device.pk}/remove/")
    assert response.status_code == 302
    assert device_for_token(token) is None
    assert notify(token, "Зачисление 500р").status_code == 401
    assert f'data-device-id="{device.pk}"' not in cab.client.get(PAGE).content.decode()


def test_another_traders_device_and_requisites_are_out_of_reach(cab):
    other = make_cabinet("other")
    device, token = device_add(trader=other.trader, name="Theirs", requisites=[other.requisite])
    assert cab.client.post(f"{PAGE}{device.pk}/remove/").status_code == 404
    assert cab.client.post(f"{PAGE}{device.pk}/requisites/").status_code == 404
    assert device_for_token(token) is not None
    cab.client.post(f"{PAGE}add/", {"name": "Mine", "requisites": [str(other.requisite.pk)]})
    assert list(Device.objects.get(name="Mine").requisites.all()) == []


def test_notifications_are_listed_and_an_unmatched_one_attached(cab):
    device, token = device_add(trader=cab.trader, name="Phone", requisites=[cab.requisite])
    order = buy_order(terminal=cab.terminal, method=cab.method, amount="3100.00")
    assert notify(token, "Зачисление 3100.50р").json()["notification"]["status"] == "unmatched"
    notification = BankNotification.objects.get()
    html = cab.client.get(PAGE).content.decode()
    assert f'data-notification-id="{notification.pk}" data-status="unmatched"' in html
    response = cab.client.post(
        f"{PAGE}notifications/{notification.pk}/attach/", {"order_id": str(order.pk)}
    )
    assert response.status_code == 302
    order = Order.objects.get(pk=order.pk)
    assert (order.status, order.closed_by) == ("Completed", f"trader:{cab.trader.pk}")
    assert str(order.paid_amount) == "3100.50"
    notification.refresh_from_db()
    assert (notification.status, notification.order_id) == ("matched", order.pk)
    entry = AuditEntry.objects.get(action="notification.attach")
    assert (entry.actor_kind, entry.actor_id, entry.object_id) == (
        "trader",
        str(cab.trader.pk),
        str(order.pk),
    )
    # Attached once: a second try is refused in the cabinet's Russian, nothing changes.
    again = cab.client.post(
        f"{PAGE}notifications/{notification.pk}/attach/", {"order_id": str(order.pk)}, follow=True
    )
    assert "К заявке можно привязать только несопоставленное уведомление" in (
        again.content.decode()
    )
    assert AuditEntry.objects.filter(action="notification.attach").count() == 1


def test_another_traders_notification_is_404(cab):
    other = make_cabinet("other")
    _, token = device_add(trader=other.trader, name="Theirs", requisites=[other.requisite])
    notify(token, "Зачисление 100р")
    notification = BankNotification.objects.get()
    response = cab.client.post(f"{PAGE}notifications/{notification.pk}/attach/", {"order_id": "x"})
    assert response.status_code == 404


def test_the_page_is_russian_first_with_an_english_switch(cab):
    assert "Устройства" in cab.client.get(PAGE).content.decode()
    assert "Devices" in cab.client.get(f"{PAGE}?lang=en").content.decode()


def test_a_device_confirm_is_audited_and_shown_on_the_traders_admin_page(cab):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    call_command("operators_group", verbosity=0)
    staff = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    staff.groups.set(Group.objects.filter(name="Operators"))
    operator = Client()
    operator.force_login(staff)
    device, token = device_add(trader=cab.trader, name="Phone", requisites=[cab.requisite])
    order = buy_order(terminal=cab.terminal, method=cab.method, amount="3100.00")
    assert notify(token, "Зачисление 3100р").json()["notification"]["status"] == "matched"
    entry = AuditEntry.objects.get(action="order.confirm")
    assert (entry.actor_kind, entry.actor_id, entry.object_id) == (
        "device",
        str(device.pk),
        str(order.pk),
    )
    Client().post("/trader/login/", {"username": "cab", "password": "wrong-password"})
    page = operator.get(f"/admin/orders/trader/{cab.trader.pk}/change/").content.decode()
    assert "sign_in_failed" in page  # what the trader did is on its page
