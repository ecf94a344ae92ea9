"""DeviceClient against a running service with the demo data: trader 1's demo phone
forwards a bank notification that completes its order, repeats it, says it is alive."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from paymentsvc_client import (
    AuthenticationError,
    DeviceClient,
    DeviceNotification,
    Direction,
    NotificationStatus,
    OrderSide,
    ValidationError,
)

from .conftest import FAST_RETRIES

DEVICE_1 = "dev_demo-device-1-token-0000000000000000"
VTB = "100000000005"


@pytest.fixture
def device(live):
    with DeviceClient(live, DEVICE_1, retry=FAST_RETRIES) as d:
        yield d


def test_a_forwarded_payment_completes_its_order_and_a_repeat_is_a_duplicate(
    device, client, method_ids
):
    from orders.models import Requisite

    # Only trader 1 holds a VTB requisite now, so the order is on its device's requisite.
    Requisite.objects.filter(method__name="VTB SBP").exclude(trader__name="Trader One").update(
        is_active=False
    )
    order = client.orders.create(
        client_order_id="device-1",
        order_side=OrderSide.BUY,
        payment_method_id=method_ids["VTB SBP"],
        amount=Decimal("1234.00"),
    )
    text = f"Поступление {order.amount}р Счет*3301 от ИВАН И. Баланс 61500.00р 10:22"
    sent = device.notifications.send(id="sms-1", source="VTB", text=text)
    assert isinstance(sent, DeviceNotification)
    assert sent.status is NotificationStatus.MATCHED
    assert sent.order_id == order.id
    assert sent.parsed.amount == order.amount
    assert sent.parsed.direction is Direction.INCOMING
    assert sent.parsed.bank == VTB
    assert client.orders.get(order.id).status == "Completed"

    again = device.notifications.send(id="sms-1", source="VTB", text=text)
    assert (again.status, again.order_id) == (NotificationStatus.DUPLICATE, order.id)


def test_a_code_is_ignored_with_nothing_read(device):
    sent = device.notifications.send(
        id="sms-code", source="900", title=None, text="Код: 48213. Никому не сообщайте."
    )
    assert sent.status is NotificationStatus.IGNORED
    assert (sent.parsed.amount, sent.parsed.direction) == (None, None)


def test_the_heartbeat_answers_with_the_device(device):
    state = device.heartbeat()
    assert state.name
    assert abs(state.last_seen_at - datetime.now(UTC)) < timedelta(minutes=1)


def test_a_wrong_token_and_bad_input_are_typed_errors(live, device):
    with DeviceClient(live, "dev_wrong", retry=FAST_RETRIES) as wrong:
        with pytest.raises(AuthenticationError) as refused:
            wrong.heartbeat()
    assert refused.value.message == "Invalid device token"
    with pytest.raises(ValidationError) as bad:
        device.notifications.send(id="empty", source="900", text="")
    assert "text" in bad.value.errors
