"""The clock jumping on a web host. Expiry should follow the database's clock (one
clock for every web process), not each web process's own; today it follows the web
process's, so a host whose clock jumps ahead shows live orders as Expired and the
sweep on it expires them, releasing Sell reserves early. Kept as a strict xfail: the
day expiry compares with the database's now(), this test passes and the mark must go
(docs/reliability.md, "Not yet covered")."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from conftest import buy_body
from orders.services import order_expire_due

pytestmark = pytest.mark.django_db


@pytest.mark.xfail(strict=True, reason="expiry uses the web process's clock, not the database's")
def test_a_web_clock_jumping_ahead_expires_nothing(shop, demo):
    order = shop.post("/api/v1/order/", buy_body(demo, amount="1234")).json()
    # The database's clock has not moved; this host's jumps 20 minutes (Buy TTL: 15).
    with time_machine.travel(timezone.now() + timedelta(minutes=20), tick=True):
        shown = shop.get(f"/api/v1/order/{order['id']}").json()["order"]["status"]
        expired = order_expire_due()
    assert (shown, expired) == ("Pending", 0)
