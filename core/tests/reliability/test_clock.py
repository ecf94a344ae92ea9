"""The clock jumping on a web host. Expiry follows the database's clock (one clock for
every web process), not each web process's own: an order's created_at and expires_at
are written by the database in the INSERT, and every check of "is this Pending order
past expiry" (shown status, lists, the sweep, confirm and cancel, the anti-fraud cap,
receipts, the payer's time left) compares with the database's now().

time_machine moves the web process's clock only (Python's time functions); the
database's clock (PostgreSQL's, or SQLite's, read through the C library) goes on
undisturbed, as it would when one host's clock jumps (docs/reliability.md, "Clock")."""

import re
import time
from datetime import datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from conftest import buy_body, sell_body, trader_for
from core.db import db_now
from finance.models import Balance
from finance.services import ledger_check
from forms_ui.models import FormSession
from orders.models import Order
from orders.services import order_expire_due

pytestmark = pytest.mark.django_db

URL = "/api/v1/order/"
AHEAD = timedelta(minutes=20)  # more than a Buy's TTL (15 minutes)
BEHIND = timedelta(hours=2)  # more than a Sell's TTL (60 minutes)


def web_clock(offset: timedelta):
    """This web process's clock `offset` away from the database's, running on."""
    return time_machine.travel(timezone.now() + offset, tick=True)


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def frozen(demo):
    return Balance.objects.get(terminal=demo.shop).frozen


def test_a_web_clock_jumping_ahead_expires_nothing(shop, demo):
    order = shop.post(URL, buy_body(demo, amount="1234")).json()
    # The database's clock has not moved; this host's jumps 20 minutes (Buy TTL: 15).
    with web_clock(AHEAD):
        shown = shop.get(f"{URL}{order['id']}").json()["order"]["status"]
        expired = order_expire_due()
    assert (shown, expired) == ("Pending", 0)


def test_a_web_clock_ahead_keeps_every_rule_on_the_database_s_time(shop, demo):
    sell = shop.post(URL, sell_body(demo, amount="1000", user_id="u1")).json()
    buys = [
        shop.post(URL, buy_body(demo, amount=str(1000 + i), user_id="u1")).json() for i in (1, 2)
    ]
    reserved = frozen(demo)
    with web_clock(AHEAD):
        # The lists show them Pending, the sweep leaves them and the Sell's reserve.
        listed = shop.get(URL, {"status": "Pending"}).json()["orders"]["total"]
        assert (listed, order_expire_due(), frozen(demo)) == (3, 0, reserved)
        # The anti-fraud cap (3) still counts all three as the user's Pending orders.
        refused = shop.post(URL, buy_body(demo, amount="1003", user_id="u1"))
        assert refused.status_code == 429
        # A trader's confirm is not turned into an expiry.
        confirmed = trader_for(buys[0]).post(f"/api/v1/trader/orders/{buys[0]['id']}/confirm")
        assert (confirmed.status_code, confirmed.json()["order"]["status"]) == (200, "Completed")
        cancelled = shop.post(f"{URL}{buys[1]['id']}/cancel")
        assert (cancelled.status_code, cancelled.json()["order"]["status"]) == (200, "Cancelled")
    assert Order.objects.get(pk=sell["id"]).status == "Pending"
    assert ledger_check() == []


def test_an_order_made_on_a_host_whose_clock_is_off_gets_the_database_s_times(shop, demo):
    for offset in (AHEAD, -BEHIND):
        with web_clock(offset):
            body = buy_body(demo, amount="1500" if offset > timedelta(0) else "1501")
            order = shop.post(URL, body).json()
        created, expires = moment(order["created_at"]), moment(order["expires_at"])
        assert expires - created == timedelta(minutes=15)
        # Minutes from the host's clock, within a second or so of the database's.
        assert abs(created - db_now()) < timedelta(minutes=1)


def test_a_web_clock_behind_does_not_keep_orders_past_their_ttl(shop, demo, settings):
    """The database's clock runs past a short TTL while this host's stays two hours
    behind: the order is Expired everywhere and its reserve goes back."""
    settings.ORDER_TTL_SELL_SECONDS = 1
    settings.ORDER_TTL_BUY_SECONDS = 1
    sell = shop.post(URL, sell_body(demo, amount="1000", user_id="u2")).json()
    buy = shop.post(URL, buy_body(demo, amount="1000", user_id="u2")).json()
    last = max(moment(sell["expires_at"]), moment(buy["expires_at"]))
    for _ in range(100):  # the database's clock passes both expiries
        if db_now() > last:
            break
        time.sleep(0.05)
    assert db_now() > last
    with web_clock(-BEHIND):
        shown = shop.get(f"{URL}{buy['id']}").json()["order"]["status"]
        listed = shop.get(URL, {"status": "Pending"}).json()["orders"]["total"]
        late = trader_for(buy).post(f"/api/v1/trader/orders/{buy['id']}/confirm")
        assert (shown, listed, late.status_code) == ("Expired", 0, 409)
        # Expired orders are not the user's Pending ones any more.
        for i in range(3):
            body = buy_body(demo, amount=str(1100 + i), user_id="u2")
            assert shop.post(URL, body).status_code == 201
        assert order_expire_due() == 1  # the Sell; the confirm expired the Buy
    assert Order.objects.get(pk=sell["id"]).status == "Expired"
    assert frozen(demo) == 0
    assert ledger_check() == []


def test_the_payer_s_page_shows_the_time_left_by_the_database_s_clock(shop, demo, client):
    data = {
        "client_order_id": "f-1",
        "order_side": "Buy",
        "amount": "1000",
        "button_name": "SberPay",
    }
    created = shop.post("/api/v1/form/create", {"order_data": data})
    session = FormSession.objects.get(pk=created.json()["form_data"]["session_id"])
    assert session.order_id is not None
    for offset in (AHEAD, -BEHIND):
        with web_clock(offset):
            page = client.get("/form/", {"session_id": session.pk}).content.decode()
            status = client.get("/form/status", {"session_id": session.pk}).json()
        left = int(re.search(r'data-seconds-left="(\d+)"', page).group(1))
        # About 15 minutes, not 0 (host ahead) nor 2 h 15 min (host behind).
        assert 14 * 60 <= left <= 15 * 60
        assert status["order_status"] == "Pending"
