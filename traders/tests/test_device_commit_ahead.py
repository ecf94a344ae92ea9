"""A device's notification in a transaction of its own: the order's close commits it
with its last statement (`commit_ahead`), and a close that cannot end it that way (a
refusal, an account's row made on first use) is undone and received again the usual
way. Each case leaves the books as a close without it does.

Transactional tests on PostgreSQL: the COMMIT is seen from another connection while
the request is still inside its transaction's block."""

from decimal import Decimal

import pytest
from django.db import transaction

import finance.movements_together as together
from audit.models import AuditEntry
from core.errors import InsufficientFunds
from finance.ledger import ledger_check
from finance.models import AccountKind, Balance
from orders.models import Order
from orders.tests.test_concurrency import in_parallel
from traders.models import BankNotification
from traders.notifications import notification_attach, notification_receive
from webhooks.models import WebhookEvent

from .setup import ground, sber_sms, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _buy_statuses() -> list[str]:
    return sorted(Order.objects.filter(side="Buy").values_list("status", flat=True))


@pytest.fixture
def closes(monkeypatch):
    """Each close's balances' statement as it ran: whether it was to commit, what it
    raised, and the orders' statuses read right after it on another thread's
    connection (what was committed by then)."""
    seen = []
    real = together.rows_change_together

    def watched(changes, *, commit=False, **kwargs):
        entry = {"commit": commit, "raised": None, "elsewhere": None}
        seen.append(entry)
        try:
            return real(changes, commit=commit, **kwargs)
        except Exception as error:
            entry["raised"] = type(error).__name__
            raise
        finally:
            entry["elsewhere"] = in_parallel([_buy_statuses], workers=1)[0]

    monkeypatch.setattr(together, "rows_change_together", watched)
    return seen


def _platform() -> Balance:
    return Balance.objects.get(kind=AccountKind.PLATFORM, sandbox=False)


def test_a_matched_notification_is_committed_by_its_close(closes):
    g = ground()
    g.buy("1000.00")  # the platform's row made by an earlier close
    g.buy("1500.00")
    assert send(g.token, id="first", text=sber_sms("1000")).status_code == 200
    closes.clear()
    revenue = _platform().available

    response = send(g.token, id="second", text=sber_sms("1500"))

    assert response.status_code == 200, response.content
    assert response.json()["notification"]["status"] == "matched"
    # Committed by the close's statement: another connection saw it completed before
    # the request's block was over.
    assert closes == [{"commit": True, "raised": None, "elsewhere": ["Completed", "Completed"]}]
    order = Order.objects.get(amount=Decimal("1500.00"))
    assert order.status == "Completed"
    assert _platform().available == revenue + order.fee_amount - order.trader_reward
    assert BankNotification.objects.get(external_id="second").order_id == order.pk
    assert WebhookEvent.objects.filter(order_id=order.pk, type="order.completed").count() == 1
    assert AuditEntry.objects.for_object(order).filter(action="order.confirm").count() == 1
    assert ledger_check() == []


def test_a_close_that_makes_the_platforms_row_is_received_again_the_usual_way(closes):
    g = ground()
    order = g.buy("1500.00")
    Balance.objects.filter(kind=AccountKind.PLATFORM).delete()  # no close has run yet

    response = send(g.token, text=sber_sms("1500"))

    assert response.status_code == 200, response.content
    assert response.json()["notification"]["status"] == "matched"
    assert closes == [
        {"commit": True, "raised": "NotCommittedAhead", "elsewhere": ["Pending"]},
        {"commit": False, "raised": None, "elsewhere": ["Pending"]},
    ]
    order.refresh_from_db()
    assert order.status == "Completed"
    assert _platform().available == order.fee_amount - order.trader_reward
    assert BankNotification.objects.count() == 1
    assert WebhookEvent.objects.filter(order_id=order.pk, type="order.completed").count() == 1
    assert AuditEntry.objects.for_object(order).filter(action="order.confirm").count() == 1
    assert ledger_check() == []


def test_a_refused_close_commits_nothing_and_keeps_the_notification_unmatched(closes):
    """A reward above the fee is the platform's debit, refused when its revenue does
    not cover it: the close is undone, the order stays Pending, and the notification
    is kept unmatched (answered 200), for its trader to attach once the books allow."""
    g = ground()
    g.sber.ranges.filter(side="Buy").update(trader_reward_percent=Decimal("40"))
    order = g.buy("1500.00")
    assert order.trader_reward_percent == Decimal("40")
    Balance.objects.filter(kind=AccountKind.PLATFORM).update(available=0)

    response = send(g.token, id="refused", text=sber_sms("1500"))

    assert response.status_code == 200, response.content
    shown = response.json()["notification"]
    assert shown["status"] == "unmatched"
    assert shown["order_id"] is None
    assert shown["parsed"]["amount"] == "1500.00"
    assert [(c["commit"], c["raised"]) for c in closes] == [
        (True, "NotCommittedAhead"),
        (False, None),  # the refusal is raised once the statement is back
    ]
    assert all(c["elsewhere"] == ["Pending"] for c in closes)
    order.refresh_from_db()
    assert order.status == "Pending"
    kept = BankNotification.objects.get()
    assert (kept.external_id, kept.status, kept.order_id) == ("refused", "unmatched", None)
    assert not WebhookEvent.objects.filter(order_id=order.pk, type="order.completed").exists()
    assert ledger_check() == []

    # The device's retry is the first answer, and changes nothing: the close it tries
    # on the way (its row rides on that close's statement, where the unique (device,
    # id) refuses it) is undone with it.
    again = send(g.token, id="refused", text=sber_sms("1500"))
    assert again.status_code == 200
    assert again.json()["notification"]["status"] == "duplicate"
    assert again.json()["notification"]["order_id"] is None
    assert [c["raised"] for c in closes[2:]] == ["NotCommittedAhead", "IntegrityError"]
    assert all(c["elsewhere"] == ["Pending"] for c in closes)
    order.refresh_from_db()
    assert order.status == "Pending"
    assert BankNotification.objects.count() == 1
    assert ledger_check() == []

    # Its trader may attach it: refused the same way while the books do not allow it.
    with pytest.raises(InsufficientFunds):
        notification_attach(notification=kept, order_id=order.pk, actor="trader:test")
    order.refresh_from_db()
    kept.refresh_from_db()
    assert (order.status, kept.status, kept.order_id) == ("Pending", "unmatched", None)
    assert ledger_check() == []


def test_inside_a_callers_transaction_the_close_leaves_the_commit_to_it(closes):
    g = ground()
    g.buy("1500.00")
    with transaction.atomic():
        received = notification_receive(
            device=g.device,
            external_id="inside",
            source="900",
            title="",
            text=sber_sms("1500"),
            received_at=Order.objects.get().created_at,
        )
        assert received.notification.status == "matched"
        assert closes == [{"commit": False, "raised": None, "elsewhere": ["Pending"]}]
    assert Order.objects.get().status == "Completed"
    assert ledger_check() == []
