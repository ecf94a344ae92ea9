"""The dashboard's median time to confirm, split by who confirmed: a trader's phone
(device) or the trader (traders.md §20, what automation buys)."""

import re
from datetime import timedelta

import pytest
from django.db.models import F

from orders.models import Order
from orders.services import order_confirm
from traders.tests.setup import ground, sber_sms, send

pytestmark = pytest.mark.django_db


def figure(html: str, testid: str) -> str:
    return re.search(rf'data-testid="{testid}"[^>]*>([^<]*)<', html).group(1).strip()


def test_device_and_trader_confirmations_have_their_own_medians(admin_client):
    g = ground()
    by_device = g.buy("1500.00")
    send(g.token, text=sber_sms("1500"))
    by_trader = g.buy("1600.00")
    order_confirm(order_id=by_trader.pk, actor=f"trader:{g.trader.pk}")
    Order.objects.filter(pk=by_device.pk).update(closed_at=F("created_at") + timedelta(seconds=7))
    Order.objects.filter(pk=by_trader.pk).update(closed_at=F("created_at") + timedelta(seconds=95))
    html = admin_client.get(f"/admin/dashboard/?terminal={g.terminal.pk}").content.decode()
    assert figure(html, "kpi-median-confirm-seconds-device") == "7"
    assert figure(html, "kpi-median-confirm-seconds-trader") == "95"
    assert figure(html, "kpi-median-confirm-seconds") == "51"


def test_with_nothing_confirmed_both_read_zero(admin_client):
    html = admin_client.get("/admin/dashboard/").content.decode()
    assert figure(html, "kpi-median-confirm-seconds-device") == "0"
    assert figure(html, "kpi-median-confirm-seconds-trader") == "0"


def test_the_split_is_labelled_in_russian(admin_client):
    html = admin_client.get("/admin/dashboard/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Медиана времени подтверждения, устройством" in html
