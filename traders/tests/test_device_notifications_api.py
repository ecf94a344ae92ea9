"""POST /api/v1/device/notifications (traders.md §20): the answer for each status,
every notification kept with what was read, and bad input refused with nothing kept."""

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.test import Client

from finance.ledger import ledger_check
from finance.models import AccountKind, Balance
from orders.models import Order
from orders.tests.clock import orders_age
from orders.tests.factories import RequisiteFactory, TraderFactory, sell_order
from traders.devices import device_add
from traders.models import BankNotification
from traders.notifications import notification_attach

from .setup import SBER, ground, sber_sms, send

pytestmark = pytest.mark.django_db


@pytest.fixture
def g():
    return ground()


def test_a_payment_of_a_pending_buys_amount_completes_it(g):
    order = g.buy("1500.00")
    response = send(g.token, text=sber_sms("1500"))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["success"] is True
    assert body["notification"] == {
        "id": "n-1",
        "status": "matched",
        "parsed": {"amount": "1500.00", "direction": "incoming", "bank": SBER},
        "order_id": str(order.pk),
    }
    order.refresh_from_db()
    assert order.status == "Completed"
    assert order.closed_by == f"device:{g.device.pk}"
    kept = BankNotification.objects.get()
    assert (kept.status, kept.order_id, kept.amount) == ("matched", order.pk, order.amount)


def test_no_pending_buy_of_that_amount_is_unmatched_and_kept(g):
    g.buy("1500.00")
    body = send(g.token, text=sber_sms("1501")).json()["notification"]
    assert (body["status"], body["order_id"]) == ("unmatched", None)
    assert body["parsed"]["amount"] == "1501.00"
    assert BankNotification.objects.get().status == "unmatched"
    assert Order.objects.get().status == "Pending"


def test_the_same_amount_on_two_of_the_devices_requisites_is_ambiguous(g):
    g.buy("2000.00", method=g.sber)
    g.buy("2000.00", method=g.vtb)
    body = send(g.token, text="Зачисление 2 000 ₽", source="com.android.messaging").json()
    assert body["notification"]["status"] == "ambiguous"
    assert body["notification"]["parsed"]["bank"] is None
    assert set(Order.objects.values_list("status", flat=True)) == {"Pending"}


def test_the_bank_the_notification_names_picks_its_requisite(g):
    g.buy("2000.00", method=g.sber)
    vtb = g.buy("2000.00", method=g.vtb)
    body = send(g.token, text="Поступление 2000.00р Счет*3301 от ИВАН И.", source="VTB").json()
    assert body["notification"]["status"] == "matched"
    assert body["notification"]["order_id"] == str(vtb.pk)


def test_a_bank_none_of_the_requisites_is_of_is_unmatched(g):
    g.buy("2000.00", method=g.sber)
    body = send(g.token, text="Zachislenie 2000.00 RUB. Karta *7781.", source="MTS-Bank").json()
    assert body["notification"]["status"] == "unmatched"


@pytest.mark.parametrize(
    "text",
    [
        "MIR-4417 19:40 Покупка 1500р PYATEROCHKA Баланс: 7650р",
        "Код для входа в СберБанк Онлайн: 48213. Никому его не сообщайте.",
        "Повышенный кэшбэк 10% в ресторанах до конца месяца",
    ],
)
def test_a_debit_a_code_or_an_advertisement_is_ignored(g, text):
    g.buy("1500.00")
    body = send(g.token, text=text).json()["notification"]
    assert body["status"] == "ignored"
    assert Order.objects.get().status == "Pending"
    assert BankNotification.objects.get().status == "ignored"


def test_a_code_has_no_amount_nor_direction(g):
    parsed = send(g.token, text="Код: 1234. Никому не сообщайте").json()["notification"]["parsed"]
    assert parsed == {"amount": None, "direction": None, "bank": SBER}


def test_the_same_id_again_is_a_duplicate_with_the_first_answers_order(g):
    order = g.buy("1500.00")
    first = send(g.token, text=sber_sms("1500")).json()["notification"]
    again = send(g.token, text=sber_sms("1500")).json()["notification"]
    assert again == {**first, "status": "duplicate"}
    assert again["order_id"] == str(order.pk)
    assert BankNotification.objects.count() == 1


def test_a_duplicate_does_nothing_again_even_when_a_new_order_has_the_amount(g):
    send(g.token, text=sber_sms("1500"))
    order = g.buy("1500.00")
    again = send(g.token, text=sber_sms("1500")).json()["notification"]
    assert (again["status"], again["order_id"]) == ("duplicate", None)
    order.refresh_from_db()
    assert order.status == "Pending"


def test_a_duplicate_of_one_attached_since_still_gives_the_first_answer(g):
    """The trader attached the unmatched notification to an order afterwards: a retry
    of the same id still answers as the first time (no order), and changes nothing."""
    first = send(g.token, text=sber_sms("1500")).json()["notification"]
    assert (first["status"], first["order_id"]) == ("unmatched", None)
    order = g.buy("1500.00")
    notification_attach(
        notification=BankNotification.objects.get(), order_id=order.pk, actor="trader:t"
    )
    again = send(g.token, text=sber_sms("1500")).json()["notification"]
    assert again == {**first, "status": "duplicate"}
    assert BankNotification.objects.get().order_id == order.pk


def test_another_device_may_use_the_same_id(g):
    _, other = device_add(trader=g.trader, name="Other", requisites=[g.sber_requisite])
    send(g.token, text=sber_sms("10"))
    assert send(other, text=sber_sms("10")).json()["notification"]["status"] == "unmatched"


def test_an_overdue_order_is_not_matched(g):
    g.buy("1500.00")
    orders_age(timedelta(minutes=16))
    assert send(g.token, text=sber_sms("1500")).json()["notification"]["status"] == "unmatched"


def test_a_close_the_books_refuse_keeps_the_notification_unmatched(g):
    """A reward above the fee the platform's revenue cannot cover refuses the close:
    the order stays Pending, and the notification is kept, answered unmatched."""
    g.sber.ranges.filter(side="Buy").update(trader_reward_percent=Decimal("40"))
    order = g.buy("1500.00")
    assert Balance.objects.get(kind=AccountKind.PLATFORM, sandbox=False).available == 0
    response = send(g.token, text=sber_sms("1500"))
    assert response.status_code == 200, response.content
    assert response.json()["notification"]["status"] == "unmatched"
    assert response.json()["notification"]["order_id"] is None
    order.refresh_from_db()
    assert order.status == "Pending"
    assert BankNotification.objects.get().status == "unmatched"
    assert ledger_check() == []


def test_a_sell_of_the_amount_is_never_completed(g):
    sell = sell_order(terminal=g.terminal, method=g.sber, amount="1500.00")
    assert send(g.token, text=sber_sms("1500")).json()["notification"]["status"] == "unmatched"
    sell.refresh_from_db()
    assert sell.status == "Pending"


def test_another_traders_order_is_never_completed(g):
    stranger = RequisiteFactory(trader=TraderFactory(), method=g.sber)
    # Bound by hand past the service's check, as a corrupted row would be.
    g.device.requisites.add(stranger)
    g.sber_requisite.is_active = False
    g.sber_requisite.save()
    order = g.buy("1500.00")
    assert order.requisite_id == stranger.pk
    assert send(g.token, text=sber_sms("1500")).json()["notification"]["status"] == "unmatched"


def test_an_unbound_requisites_order_is_not_matched(g):
    g.device.requisites.remove(g.sber_requisite)
    g.buy("1500.00")
    assert send(g.token, text=sber_sms("1500")).json()["notification"]["status"] == "unmatched"


def test_a_live_device_never_completes_a_sandbox_order():
    live = ground()
    sandbox_terminal = type(live.terminal).objects.get(pk=live.terminal.pk)
    sandbox_terminal.sandbox = True
    sandbox_terminal.save()
    live.trader.sandbox = True  # the order goes to a sandbox trader: this one, now
    live.trader.save()
    order = live.buy("1500.00", terminal=sandbox_terminal)
    live.trader.sandbox = False
    live.trader.save()
    assert send(live.token, text=sber_sms("1500")).json()["notification"]["status"] == "unmatched"
    order.refresh_from_db()
    assert order.status == "Pending"


def test_a_sandbox_device_completes_a_sandbox_order():
    sandbox = ground(sandbox=True)
    order = sandbox.buy("1500.00")
    assert order.livemode is False
    body = send(sandbox.token, text=sber_sms("1500")).json()["notification"]
    assert (body["status"], body["order_id"]) == ("matched", str(order.pk))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 4001}, "text"),
        ({"id": ""}, "id"),
        ({"source": ""}, "source"),
        ({"received_at": "yesterday"}, "received_at"),
    ],
)
def test_bad_input_is_400_with_a_clear_message_and_nothing_kept(g, change, field):
    body = {"text": sber_sms("1500"), **change}
    response = send(g.token, **body)
    assert response.status_code == 400, response.content
    assert response.json()["success"] is False
    assert field in response.json()["message"]
    assert field in response.json()["errors"]
    assert not BankNotification.objects.exists()


@pytest.mark.parametrize("missing", ["id", "source", "received_at", "text"])
def test_a_missing_field_is_400(g, missing):
    body = {"id": "1", "source": "900", "received_at": datetime.now(UTC).isoformat(), "text": "x"}
    del body[missing]
    response = Client().post(
        "/api/v1/device/notifications",
        json.dumps(body),
        content_type="application/json",
        headers={"X-Device-Token": g.token},
    )
    assert response.status_code == 400
    assert missing in response.json()["errors"]
    assert not BankNotification.objects.exists()


def test_a_nul_anywhere_is_400(g):
    response = send(g.token, text="Зачисление 500р\x00")
    assert response.status_code == 400
    assert not BankNotification.objects.exists()


def test_the_title_may_be_empty_or_absent(g):
    assert send(g.token, text=sber_sms("5"), title="").status_code == 200
    assert send(g.token, text=sber_sms("5"), id="n-2", title=None).status_code == 200


def test_a_slightly_fast_phone_clock_is_accepted(g):
    ahead = datetime.now(UTC) + timedelta(minutes=2)
    assert send(g.token, text=sber_sms("5"), received_at=ahead.isoformat()).status_code == 200
    assert BankNotification.objects.get().received_at == ahead


def test_a_phone_clock_far_ahead_still_completes_the_order_received_now(g):
    """The payment it reports is not lost to the phone's wrong clock."""
    order = g.buy("1500.00")
    before = datetime.now(UTC)
    far = (before + timedelta(days=400)).isoformat()
    response = send(g.token, text=sber_sms("1500"), received_at=far)
    assert response.status_code == 200, response.content
    assert response.json()["notification"]["status"] == "matched"
    order.refresh_from_db()
    assert order.status == "Completed"
    assert before <= BankNotification.objects.get().received_at <= datetime.now(UTC)


@pytest.mark.parametrize(
    ("field", "value"),
    [("text", 1500), ("source", 900), ("title", 5), ("text", ["x"]), ("id", True), ("id", 1.5)],
)
def test_a_text_field_sent_as_another_json_type_is_400(g, field, value):
    response = send(g.token, **{"text": sber_sms("1500"), field: value})
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not BankNotification.objects.exists()


@pytest.mark.parametrize(("value", "kept"), [(42, "42"), (-7, "-7"), (12.0, "12")])
def test_an_integer_id_is_kept_as_its_text(g, value, kept):
    response = send(g.token, id=value, text=sber_sms("5"))
    assert response.status_code == 200, response.content
    assert response.json()["notification"]["id"] == kept
    assert BankNotification.objects.get().external_id == kept
    again = send(g.token, id=kept, text=sber_sms("5"))
    assert again.json()["notification"]["status"] == "duplicate"


def test_an_integer_id_beyond_64_bits_is_400(g):
    response = send(g.token, id=2**63, text=sber_sms("5"))
    assert response.status_code == 400
    assert "id" in response.json()["errors"]
