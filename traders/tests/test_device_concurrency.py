"""Parallel retries of one notification and parallel notifications of one amount,
each request on its own connection: one order completed once, one row per id.

On PostgreSQL the unique (device, id) and the order's row lock decide; on SQLite the
IMMEDIATE write lock queues the writers. Both must give the same answers."""

from collections import Counter

import pytest

from orders.models import Order
from orders.tests.test_concurrency import in_parallel
from traders.models import BankNotification
from webhooks.models import WebhookEvent

from .setup import ground, sber_sms, send

pytestmark = pytest.mark.django_db(transaction=True)


def test_parallel_retries_of_one_notification_complete_its_order_once():
    g = ground()
    order = g.buy("1500.00")

    def retry():
        response = send(g.token, id="same", text=sber_sms("1500"))
        assert response.status_code == 200, response.content
        return response.json()["notification"]

    answers = in_parallel([retry] * 16)
    assert Counter(a["status"] for a in answers) == {"matched": 1, "duplicate": 15}
    assert {a["order_id"] for a in answers} == {str(order.pk)}
    assert BankNotification.objects.count() == 1
    order.refresh_from_db()
    assert order.status == "Completed"
    completed = WebhookEvent.objects.filter(order_id=order.pk, type="order.completed")
    assert list(completed.values_list("actor", flat=True)) == ["device"]


def test_parallel_notifications_of_one_amount_complete_one_order_once():
    g = ground()
    order = g.buy("1500.00")

    def notify(n):
        return lambda: send(g.token, id=f"n-{n}", text=sber_sms("1500")).json()["notification"]

    answers = in_parallel([notify(n) for n in range(12)])
    assert Counter(a["status"] for a in answers) == {"matched": 1, "unmatched": 11}
    assert BankNotification.objects.count() == 12
    assert Order.objects.get(pk=order.pk).status == "Completed"


def test_notifications_racing_the_traders_own_confirm_complete_the_order_once():
    """The match locks the order it found: a trader's tap on the same order waits for
    it or goes first, and either way the order is completed once, its money moved
    once."""
    from finance.services import ledger_check
    from orders.services import OrderNotPending, order_confirm

    g = ground()
    orders = [g.buy(f"{1500 + n}.00") for n in range(6)]

    def notify(n):
        def call():
            answer = send(g.token, id=f"race-{n}", text=sber_sms(str(1500 + n)))
            return ("device", answer.json()["notification"]["status"])

        return call

    def tap(order):
        def call():
            try:
                order_confirm(order_id=order.pk, actor=f"trader:{g.trader.pk}")
            except OrderNotPending:
                return ("trader", "refused")
            return ("trader", "completed")

        return call

    calls = [f(n) for n in range(6) for f in (notify, lambda n: tap(orders[n]))]
    answers = Counter(in_parallel(calls))
    completed = answers[("device", "matched")] + answers[("trader", "completed")]
    assert completed == 6
    assert answers[("device", "unmatched")] == answers[("trader", "completed")]
    assert answers[("trader", "refused")] == answers[("device", "matched")]
    for order in orders:
        order.refresh_from_db()
        assert order.status == "Completed"
        events = WebhookEvent.objects.filter(order_id=order.pk, type="order.completed")
        assert events.count() == 1
    assert ledger_check() == []
