"""/trader/devices/ in Chromium on a phone: add a device (token shown once, with its
QR), the phone's notification listed with its status, an unmatched one attached to a
waiting order, the device removed."""

import json
import re
from datetime import UTC, datetime

import httpx
from playwright.sync_api import expect

from orders.models import Order
from orders.tests.factories import buy_order
from traders.models import Device

from .browser import browser_marks, shot, sign_in
from .cabinet import PASSWORD, make_cabinet
from .test_accessibility import check

pytestmark = browser_marks


def notify(base, token, text, id):
    body = {"id": id, "source": "900", "text": text, "received_at": datetime.now(UTC).isoformat()}
    response = httpx.post(
        f"{base}/api/v1/device/notifications",
        content=json.dumps(body),
        headers={"X-Device-Token": token, "Content-Type": "application/json"},
    )
    return response


def test_a_trader_adds_a_device_sees_its_notifications_attaches_one_and_removes_it(live_cab, page):
    sign_in(page, live_cab.base, live_cab.user.username, PASSWORD)
    page.goto(f"{live_cab.base}/trader/devices/")
    expect(page.locator("h1")).to_have_text("Устройства")
    page.get_by_test_id("device-name-input").fill("Мой телефон")
    page.get_by_test_id("device-add").click()
    token = page.get_by_test_id("device-token").inner_text().strip()
    assert re.fullmatch(r"dev_[A-Za-z0-9_-]{32,}", token)
    expect(page.get_by_test_id("device-token-qr").locator("svg")).to_be_visible()
    shot(page, "devices-token")
    device = Device.objects.get(trader=live_cab.trader)
    assert {r.pk for r in device.requisites.all()} == {
        live_cab.requisite.pk,
        live_cab.card_requisite.pk,
    }

    page.goto(f"{live_cab.base}/trader/devices/")
    expect(page.get_by_test_id("device-token")).to_have_count(0)
    item = page.locator(f'[data-testid="device"][data-device-id="{device.pk}"]')
    expect(item.get_by_test_id("device-state")).to_have_text("Не в сети")

    order = buy_order(terminal=live_cab.terminal, method=live_cab.method, amount="1500.00")
    sent = notify(
        live_cab.base, token, "СЧЁТ2838 14:02 Перевод 1499р от Иван И. Баланс: 24210.55р", "1"
    )
    assert sent.json()["notification"]["status"] == "unmatched"
    page.goto(f"{live_cab.base}/trader/devices/")
    expect(item.get_by_test_id("device-state")).to_have_text("В сети")
    listed = page.locator('[data-testid="notification"][data-status="unmatched"]')
    expect(listed).to_have_count(1)
    listed.get_by_test_id("notification-order").select_option(str(order.pk))
    listed.get_by_test_id("notification-attach").click()
    expect(page.get_by_test_id("messages")).to_be_visible()
    expect(page.locator('[data-testid="notification"][data-status="matched"]')).to_have_count(1)
    assert Order.objects.get(pk=order.pk).status == "Completed"
    shot(page, "devices-notifications")

    item.get_by_test_id("device-remove").click()
    expect(item).to_have_count(0)
    assert notify(live_cab.base, token, "Зачисление 500р", "2").status_code == 401


def test_the_devices_page_has_no_serious_violation(live_server, wide_page):
    page, base = wide_page, live_server.url
    cabinet = make_cabinet()
    sign_in(page, base, cabinet.user.username, PASSWORD)
    page.goto(f"{base}/trader/devices/")
    check(page, "devices-empty")
    page.get_by_test_id("device-name-input").fill("Phone")
    page.get_by_test_id("device-add").click()
    token = page.get_by_test_id("device-token").inner_text().strip()
    check(page, "devices-token")
    buy_order(terminal=cabinet.terminal, method=cabinet.method, amount="3100.00")
    notify(base, token, "Зачисление 3 000р", "a")
    notify(base, token, "Код: 4821. Никому не сообщайте", "b")
    page.goto(f"{base}/trader/devices/?lang=en")
    check(page, "devices-en")
