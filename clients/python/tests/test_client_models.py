"""Reading results: typed fields, fields the service adds later kept, values a
newer service may send kept as sent; and Retry-After in both of its forms."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email.utils import format_datetime

import httpx
from paymentsvc_client import Event, EventType, Order, OrderStatus, RateLimitError
from paymentsvc_client._core import raise_for_error, retry_after_seconds


def test_an_order_reads_typed_and_keeps_what_it_does_not_know():
    order = Order.from_api(
        {
            "id": "o-1",
            "amount": "1000.00",
            "fixed_fee": 50,
            "status": "Refunded",
            "created_at": "2026-01-02T03:04:05.678Z",
            "paid_amount": None,
            "refund_amount": "10.00",
        }
    )
    assert order.amount == Decimal("1000.00")
    assert order.fixed_fee == Decimal("50")
    assert order.status == "Refunded" and not isinstance(order.status, OrderStatus)
    assert order.created_at == datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    assert order.paid_amount is None and order.holder_name is None
    assert order.refund_amount == "10.00"
    assert order.to_dict()["refund_amount"] == "10.00"


def test_an_event_reads_its_nested_order():
    event = Event.from_api(
        {
            "id": "evt",
            "type": "order.completed",
            "sequence": 2,
            "created_at": "2026-01-02T03:04:05Z",
            "data": {"order": {"id": "o-1", "status": "Completed", "paid_amount": "5.00"}},
        }
    )
    assert event.type is EventType.ORDER_COMPLETED
    assert event.data.order.status is OrderStatus.COMPLETED
    assert event.data.order.paid_amount == Decimal("5.00")
    assert event.data.dispute is None


def test_retry_after_in_seconds_or_as_a_date():
    seconds = httpx.Response(429, headers={"Retry-After": "7"})
    assert retry_after_seconds(seconds) == 7
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    dated = httpx.Response(429, headers={"Retry-After": later})
    assert 25 <= retry_after_seconds(dated) <= 31
    assert retry_after_seconds(httpx.Response(429)) is None


def test_an_error_body_becomes_the_typed_error():
    response = httpx.Response(
        429,
        headers={"Retry-After": "3"},
        json={"success": False, "message": "Slow down", "code": "rate_limited"},
    )
    try:
        raise_for_error(response)
    except RateLimitError as exc:
        assert (exc.status, exc.code, exc.message, exc.retry_after) == (
            429,
            "rate_limited",
            "Slow down",
            3,
        )
        assert exc.errors == {}
    else:
        raise AssertionError("no error raised")
