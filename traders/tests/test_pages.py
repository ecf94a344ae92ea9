"""The cabinet's pages over HTTP: the orders list and its poll, confirm and decline
(a Buy's amount received), requisites and their switch, statistics; another trader's
order or requisite is 404."""

import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from finance.models import Balance, Transaction
from orders.models import Order, Requisite
from orders.services.requisite_state import requisite_switch
from orders.tests.factories import buy_order, sell_order
from traders.services import PaidAmountInvalid, paid_amount_parse

from .cabinet import make_cabinet

pytestmark = pytest.mark.django_db
NBSP = "\u00a0"


@pytest.fixture
def cab():
    return make_cabinet()


def cards(html: str) -> list[str]:
    return re.findall(r'data-testid="trader-order" data-order-id="([^"]+)"', html)


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


def test_orders_page_lists_pending_orders_newest_first(cab):
    first = buy_order(terminal=cab.terminal, method=cab.method, amount="3100.00")
    second = sell_order(
        terminal=cab.terminal,
        method=cab.card,
        amount="1500.00",
        account="4111111111111111",
        customer_bank="sberbank",
    )
    closed = buy_order(terminal=cab.terminal, method=cab.method, amount="900.00")
    Order.objects.filter(pk=closed.pk).update(status="Cancelled")
    html = cab.client.get("/trader/").content.decode()
    assert cards(html) == [str(second.pk), str(first.pk)]
    assert f"3{NBSP}100,00{NBSP}₽" in html
    assert re.search(r'data-testid="order-timer"[^>]*>\d\d:\d\d<', html)
    assert 'data-testid="customer-account">4111111111111111<' in html
    assert html.count('data-testid="copy-customer-account"') == 1  # the Sell only
    assert 'data-testid="customer-bank">Сбербанк<' in html
    assert 'data-testid="requisite-account">+79990001122<' in html
    assert html.count('data-testid="order-confirm"') == 2 and 'data-testid="confirm-yes"' in html


def test_english_page(cab):
    buy_order(terminal=cab.terminal, method=cab.method, amount="3100.00")
    html = cab.client.get("/trader/?lang=en").content.decode()
    assert 'lang="en"' in html and f"3,100.00{NBSP}₽" in html and "Payment received" in html


def test_a_confirm_completes_once_and_a_second_says_it_is_no_longer_waiting(cab):
    order = buy_order(terminal=cab.terminal, method=cab.method, amount="1000.00")
    url = f"/trader/orders/{order.pk}/confirm/"
    done = cab.client.post(url, follow=True)
    assert "подтверждён" in messages_of(done).lower()
    again = cab.client.post(url, follow=True)
    assert "уже не ожидает" in messages_of(again)
    order.refresh_from_db()
    assert order.status == "Completed"
    assert (
        Transaction.objects.filter(reference=str(order.pk), balance__terminal=cab.terminal).count()
        == 1
    )


def test_a_buy_confirm_takes_the_amount_received(cab):
    order = buy_order(terminal=cab.terminal, method=cab.method, amount="1000.00")
    cab.client.post(f"/trader/orders/{order.pk}/confirm/", {"paid_amount": "950,50"})
    order.refresh_from_db()
    assert order.status == "Completed" and order.paid_amount == Decimal("950.50")


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("0", "сумма должна быть больше нуля"),
        ("-5", "отрицательная сумма не принимается"),
        ("1" + "0" * 12, "не больше двенадцати"),
        ("2000.01", "двух"),
        ("10.123", "двух знаков"),
        ("1e3", "экспонент"),
        ("1 000", "разделител"),
        ("abc", "цифрами"),
    ],
)
def test_a_wrong_amount_received_changes_nothing(cab, typed, says):
    order = buy_order(terminal=cab.terminal, method=cab.method, amount="1000.00")
    response = cab.client.post(
        f"/trader/orders/{order.pk}/confirm/", {"paid_amount": typed}, follow=True
    )
    assert says in messages_of(response).lower(), messages_of(response)
    order.refresh_from_db()
    assert order.status == "Pending"


def test_paid_amount_bounds():
    assert paid_amount_parse("2000.00", amount=Decimal("1000.00")) == Decimal("2000.00")
    assert paid_amount_parse(" 0.01 ", amount=Decimal("1000.00")) == Decimal("0.01")
    with pytest.raises(PaidAmountInvalid):
        paid_amount_parse("2000.01", amount=Decimal("1000.00"))


def test_a_sell_confirm_takes_no_amount_received(cab):
    order = sell_order(
        terminal=cab.terminal, method=cab.card, amount="1500.00", account="4111111111111111"
    )
    cab.client.post(f"/trader/orders/{order.pk}/confirm/", {"paid_amount": "1400.00"})
    order.refresh_from_db()
    assert order.status == "Pending"


def test_decline(cab):
    order = buy_order(terminal=cab.terminal, method=cab.method)
    response = cab.client.post(f"/trader/orders/{order.pk}/decline/", follow=True)
    assert "отклонён" in messages_of(response).lower()
    order.refresh_from_db()
    assert order.status == "Cancelled"


def test_the_poll_checks_everything_once_the_version_moved(cab):
    etag = cab.client.get("/trader/orders/live/")["ETag"]
    cab.trader.is_active = False
    cab.trader.save(update_fields=["is_active"])
    assert cab.client.get("/trader/orders/live/", HTTP_IF_NONE_MATCH='"other"').status_code == 403
    cab.client.logout()
    response = cab.client.get("/trader/orders/live/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 302  # signed out: to the sign-in page


def test_another_traders_order_and_requisite_are_404(cab):
    other = make_cabinet("other")
    theirs = buy_order(terminal=other.terminal, method=other.method)
    for path in (
        f"/trader/orders/{theirs.pk}/confirm/",
        f"/trader/orders/{theirs.pk}/decline/",
        f"/trader/requisites/{other.requisite.pk}/toggle/",
        "/trader/orders/not-a-uuid/confirm/",
    ):
        assert cab.client.post(path).status_code == 404, path
    assert cab.client.get(f"/trader/?ask=confirm&order={theirs.pk}").status_code == 404
    assert cab.client.get(f"/trader/orders/{theirs.pk}/receipts/{theirs.pk}/").status_code == 404
    theirs.refresh_from_db()
    other.requisite.refresh_from_db()
    assert theirs.status == "Pending" and other.requisite.is_active


def test_the_poll_is_a_304_without_reading_orders_until_one_changes(
    cab, django_capture_on_commit_callbacks
):
    page = cab.client.get("/trader/orders/live/")
    etag = page["ETag"]
    with CaptureQueriesContext(connection) as queries:
        unchanged = cab.client.get("/trader/orders/live/", HTTP_IF_NONE_MATCH=etag)
    assert unchanged.status_code == 304 and unchanged["ETag"] == etag
    # The session's row alone: no user, trader or order is read for a 304.
    (only,) = queries.captured_queries
    assert "django_session" in only["sql"] and Order._meta.db_table not in only["sql"]

    with django_capture_on_commit_callbacks(execute=True):
        order = buy_order(terminal=cab.terminal, method=cab.method)
    fresh = cab.client.get("/trader/orders/live/", HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200 and cards(fresh.content.decode()) == [str(order.pk)]
    with django_capture_on_commit_callbacks(execute=True):
        cab.client.post(f"/trader/orders/{order.pk}/decline/")
    gone = cab.client.get("/trader/orders/live/", HTTP_IF_NONE_MATCH=fresh["ETag"])
    assert gone.status_code == 200 and cards(gone.content.decode()) == []


def test_requisites_page_and_its_switch(cab):
    buy_order(terminal=cab.terminal, method=cab.method, amount="3100.00")
    html = cab.client.get("/trader/requisites/").content.decode()
    assert html.count('data-testid="requisite"') == 2
    assert f'data-requisite-id="{cab.requisite.pk}"' in html
    assert f"3{NBSP}100,00{NBSP}₽" in html  # today's turnover
    cab.client.post(f"/trader/requisites/{cab.requisite.pk}/toggle/")
    cab.requisite.refresh_from_db()
    assert not cab.requisite.is_active and cab.requisite.disabled_reason == "trader"
    assert "Выключен вами" in cab.client.get("/trader/requisites/").content.decode()
    cab.client.post(f"/trader/requisites/{cab.requisite.pk}/toggle/")
    cab.requisite.refresh_from_db()
    assert cab.requisite.is_active


def test_an_operators_switch_off_stays(cab):
    requisite_switch(requisite_id=cab.requisite.pk, on=False, by_operator=True)
    response = cab.client.post(f"/trader/requisites/{cab.requisite.pk}/toggle/", follow=True)
    assert "оператор" in messages_of(response)
    assert not Requisite.objects.get(pk=cab.requisite.pk).is_active


def test_stats_page_shows_the_apis_figures(cab):
    done = buy_order(terminal=cab.terminal, method=cab.method, amount="1000.00")
    cab.client.post(f"/trader/orders/{done.pk}/confirm/")
    Order.objects.filter(pk=done.pk).update(trader_reward=Decimal("25.00"))
    buy_order(terminal=cab.terminal, method=cab.method, amount="2000.00")
    html = cab.client.get("/trader/stats/?period=7d").content.decode()
    found = dict(re.findall(r'data-testid="trader-kpi-(\w+)">([^<]*)<', html))
    assert found == {
        "orders": "2",
        "completed": "1",
        "conversion": "100.0%",
        "turnover": "1000.00&nbsp;₽",
        "reward": "25.00&nbsp;₽",
    }
    assert Balance.objects.filter(terminal=cab.terminal).exists()


def test_the_payers_receipts_are_linked_and_served_to_their_trader_only(cab, settings, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from forms_ui.tests.test_accessibility import png_bytes
    from orders.receipts import receipt_attach

    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path), "base_url": None},
        },
    }
    order = buy_order(terminal=cab.terminal, method=cab.method)
    upload = SimpleUploadedFile("check.png", png_bytes(), content_type="image/png")
    receipt = receipt_attach(order_id=order.pk, upload=upload)
    html = cab.client.get("/trader/").content.decode()
    link = f"/trader/orders/{order.pk}/receipts/{receipt.pk}/"
    assert f'href="{link}" data-testid="order-receipt"' in html
    served = cab.client.get(link)
    assert served.status_code == 200 and served["Content-Type"] == "image/png"
    assert b"".join(served.streaming_content if served.streaming else [served.content])
    assert make_cabinet("third").client.get(link).status_code == 404


def test_the_balance_page_shows_moscow_time_as_it_says(cab, settings):
    from datetime import UTC, datetime

    from finance.models import Transaction

    settings.OPERATOR_TIME_ZONE = "Europe/Moscow"
    Transaction.objects.filter(balance__trader_id=cab.trader.pk).update(
        created_at=datetime(2026, 11, 25, 22, 53, tzinfo=UTC)
    )
    html = cab.client.get("/trader/balance/").content.decode()
    assert "26.11.2026 01:53 МСК" in html and "22:53" not in html


def test_the_orders_version_moves_on_a_cache_without_number_keep(settings):
    """A cache backend of Django's own (not core.cache's) still has the version moved."""
    from traders import live

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    before = live.orders_version("t-1")
    live.orders_changed("t-1")
    assert live.orders_version("t-1") != before


@pytest.mark.parametrize("debug", [False, True])
def test_a_page_that_is_not_there_is_the_cabinets_own_404_in_its_language(cab, settings, debug):
    settings.DEBUG = debug  # Django's own 404 pages (the technical one in DEBUG) are English
    other = make_cabinet("other")
    theirs = buy_order(terminal=other.terminal, method=other.method)
    for path in (
        "/trader/no-such-page/",
        "/trader/devices/no-such-page/",
        f"/trader/orders/{theirs.pk}/receipts/{theirs.pk}/",
    ):
        response = cab.client.get(path)
        assert response.status_code == 404, path
        html = response.content.decode()
        assert 'data-testid="page-missing"' in html and "Страница не найдена" in html
        assert '<html lang="ru"' in html
    english = cab.client.get("/trader/no-such-page/", {"lang": "en"}).content.decode()
    assert "Page not found" in english and '<html lang="en"' in english
    # an address without its slash is still sent to its slashed form first
    assert cab.client.get("/trader/balance").status_code == 301
