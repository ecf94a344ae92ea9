"""Safe retries, through a proxy that loses or refuses requests on cue in front of
the live server: a POST carries one Idempotency-Key across all its attempts, so a
creation whose answer was lost is answered from the service's store, not repeated."""

import time

import pytest
from paymentsvc_client import (
    ApiConnectionError,
    Client,
    OrderStatus,
    RateLimitError,
    RetryPolicy,
    ServerError,
)

from .conftest import FAST_RETRIES, SHOP_KEY


def via(proxy, **kwargs) -> Client:
    kwargs.setdefault("retry", RetryPolicy(**vars(FAST_RETRIES)))
    return Client(proxy.url, SHOP_KEY, **kwargs)


def create_buy(client, method_ids, client_order_id, amount="1000.00"):
    return client.orders.create(
        client_order_id=client_order_id,
        order_side="Buy",
        payment_method_id=method_ids["Sberbank SBP"],
        amount=amount,
    )


def keys(proxy) -> list[str | None]:
    return [r["headers"].get("Idempotency-Key") for r in proxy.requests]


def test_a_creation_whose_answer_was_lost_is_retried_with_its_key_and_made_once(
    proxy, client, method_ids
):
    proxy.script = ["drop"]
    with via(proxy) as flaky:
        order = create_buy(flaky, method_ids, "lost-answer")
    assert len(proxy.requests) == 2
    first, second = keys(proxy)
    assert first and first == second
    assert "Idempotent-Replayed" not in proxy.requests[0]["answer_headers"]
    assert proxy.requests[1]["answer_headers"]["Idempotent-Replayed"] == "true"
    found = client.orders.search_by_client_order_id("lost-answer")
    assert [o.id for o in found.items] == [order.id]


def test_503_and_refused_connections_are_retried_with_the_same_key(proxy, client, method_ids):
    proxy.script = ["503", "refuse", "503"]
    with via(proxy) as flaky:
        order = create_buy(flaky, method_ids, "busy-service")
    assert order.status is OrderStatus.PENDING
    assert len(proxy.requests) == 4
    assert len(set(keys(proxy))) == 1 and keys(proxy)[0]
    assert client.orders.search_by_client_order_id("busy-service").total == 1

    proxy.requests.clear()
    with via(proxy) as flaky:
        flaky.disputes.create(order.id, "100", files=[("a.pdf", b"%PDF-1.4\n%%EOF\n")])
        create_buy(flaky, method_ids, "second-call", amount="1001.00")
    first, second = keys(proxy)
    assert first and second and first != second


def test_a_caller_chosen_key_is_sent_and_a_repeat_is_answered_from_the_store(proxy, method_ids):
    with via(proxy) as shop:
        first = shop.orders.create(
            client_order_id="own-key",
            order_side="Buy",
            payment_method_id=method_ids["Sberbank SBP"],
            amount="1000.00",
            idempotency_key="my-key-1",
        )
        again = shop.orders.create(
            client_order_id="own-key",
            order_side="Buy",
            payment_method_id=method_ids["Sberbank SBP"],
            amount="1000.00",
            idempotency_key="my-key-1",
        )
    assert first.id == again.id
    assert keys(proxy) == ["my-key-1", "my-key-1"]


def test_retries_are_bounded(proxy):
    proxy.script = ["503"] * 10
    with via(proxy, max_retries=2) as flaky, pytest.raises(ServerError) as failed:
        flaky.finance.balance()
    assert failed.value.status == 503
    assert len(proxy.requests) == 3


def test_a_get_is_retried_after_a_lost_answer(proxy):
    proxy.script = ["drop"]
    with via(proxy) as flaky:
        assert flaky.finance.balance().currency == "RUB"
    assert len(proxy.requests) == 2


def test_a_state_change_that_may_have_happened_is_not_repeated_blindly(proxy, client, method_ids):
    order = create_buy(client, method_ids, "cancel-lost")
    proxy.script = ["drop"]
    with via(proxy) as flaky, pytest.raises(ApiConnectionError):
        flaky.orders.cancel(order.id)
    assert len(proxy.requests) == 1
    assert keys(proxy)[0]
    # The cancel did reach the service; repeating it would have been a 409.
    assert client.orders.get(order.id).status is OrderStatus.CANCELLED


def test_a_429_is_waited_out_as_retry_after_says(live, settings):
    from django.core.cache import cache

    settings.API_RATE_LIMIT = "2/s"
    cache.clear()
    try:
        with Client(live, SHOP_KEY, max_retries=0) as impatient:
            with pytest.raises(RateLimitError) as limited:
                for _ in range(20):
                    impatient.finance.balance()
        assert limited.value.status == 429
        assert limited.value.retry_after >= 1

        started = time.monotonic()
        with Client(live, SHOP_KEY, retry=RetryPolicy(max_retries=5)) as patient:
            for _ in range(6):
                patient.finance.balance()
        # Six calls at two a second: the client waited for the next windows.
        assert time.monotonic() - started >= 1.0
    finally:
        cache.clear()


def test_a_retry_after_longer_than_allowed_is_raised_at_once(live, settings):
    from django.core.cache import cache

    # A day-long window: the wait it asks for is far beyond the limit below.
    settings.API_RATE_LIMIT = "1/day"
    cache.clear()
    try:
        with Client(live, SHOP_KEY, retry=RetryPolicy(max_retry_after=5)) as client:
            client.finance.balance()
            started = time.monotonic()
            with pytest.raises(RateLimitError) as limited:
                client.finance.balance()
            assert time.monotonic() - started < 2
            assert limited.value.retry_after > 5
    finally:
        cache.clear()


def test_the_anti_fraud_429_is_a_typed_error_without_retries(client, method_ids):
    for i in range(3):
        client.orders.create(
            client_order_id=f"af-{i}",
            order_side="Buy",
            payment_method_id=method_ids["Bank card"],
            amount=f"{1000 + i}.00",
            user_id="payer-7",
        )
    with pytest.raises(RateLimitError) as blocked:
        client.orders.create(
            client_order_id="af-4",
            order_side="Buy",
            payment_method_id=method_ids["Bank card"],
            amount="1010.00",
            user_id="payer-7",
        )
    assert blocked.value.message == (
        "User has reached the maximum limit of pending orders. Please try again later"
    )
    assert blocked.value.retry_after is None
