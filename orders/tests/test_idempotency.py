import pytest

from core.models import IdempotencyRecord
from core.testing import ApiClient
from finance.models import Balance
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import Order
from orders.tests.factories import RequisiteFactory

URL = "/api/v1/order/"


@pytest.fixture
def method(db):
    return RequisiteFactory().method


@pytest.fixture
def terminal(method):
    return TerminalFactory(available="100000.00", methods=[method])


@pytest.fixture
def shop(terminal) -> ApiClient:
    return ApiClient(terminal.raw_key)


def buy(method, amount="1000.00") -> dict:
    return {
        "client_order_id": "order-1",
        "order_side": "Buy",
        "payment_method_id": str(method.pk),
        "amount": str(amount),
    }


def test_repeat_with_same_key_and_body_replays_byte_for_byte(shop, method):
    body = buy(method)
    first = shop.post(URL, body, headers={"Idempotency-Key": "k-1"})
    second = shop.post(URL, body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == second.status_code == 201
    assert first.content == second.content
    assert second["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert Order.objects.count() == 1


def test_replayed_sell_reserves_once(shop, method, terminal):
    body = {**buy(method), "order_side": "Sell", "customer_account": "+79991234567"}
    for _ in range(3):
        shop.post(URL, body, headers={"Idempotency-Key": "sell"})
    assert Balance.objects.get(terminal=terminal).frozen == 1080


def test_same_key_with_another_body_is_422(shop, method):
    shop.post(URL, buy(method, 1000), headers={"Idempotency-Key": "k"})
    response = shop.post(URL, buy(method, 1001), headers={"Idempotency-Key": "k"})
    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"


def test_business_errors_are_stored_and_replayed(terminal):
    unmatched = PaymentMethodFactory()  # no requisites: 500 No available traders
    shop = ApiClient(TerminalFactory(methods=[unmatched]).raw_key)
    body = buy(unmatched)
    first = shop.post(URL, body, headers={"Idempotency-Key": "e"})
    second = shop.post(URL, body, headers={"Idempotency-Key": "e"})
    assert first.status_code == second.status_code == 500
    assert first.content == second.content
    assert second["Idempotent-Replayed"] == "true"


def hold_key(body: dict, key: str, terminal_key: str):
    """Run a request with `key` from another thread (its own connection) and keep it
    inside its transaction, after its work, until released: a request still running."""
    import threading

    from django.db import connections
    from django.db.models.signals import post_save

    working, release = threading.Event(), threading.Event()

    def pause(sender, **kwargs):
        if threading.current_thread() is thread:
            working.set()
            release.wait(30)

    def run():
        try:
            ApiClient(terminal_key).post(URL, body, headers={"Idempotency-Key": key})
        finally:
            connections.close_all()

    post_save.connect(pause, sender=Order, weak=False)
    thread = threading.Thread(target=run)
    thread.start()
    assert working.wait(10)
    return release, thread, lambda: post_save.disconnect(pause, sender=Order)


@pytest.mark.django_db(transaction=True)
def test_a_repeat_while_the_first_runs_is_409_or_waits_for_its_answer(method, terminal):
    """PostgreSQL answers 409 at once; on SQLite the repeat queues on the database's
    write lock behind the first request and gets its answer."""
    import threading

    from django.db import connection

    shop = ApiClient(terminal.raw_key)
    body = buy(method)
    release, thread, done = hold_key(body, "slow", terminal.raw_key)
    threading.Timer(1.0, release.set).start()
    try:
        response = shop.post(URL, body, headers={"Idempotency-Key": "slow"})
    finally:
        release.set()
        thread.join()
        done()
    if connection.vendor == "postgresql":
        assert response.status_code == 409
        assert response.json()["code"] == "idempotency_in_flight"
    else:
        assert response.status_code == 201 and response["Idempotent-Replayed"] == "true"
    again = shop.post(URL, body, headers={"Idempotency-Key": "slow"})
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert Order.objects.count() == 1


def test_a_record_without_an_answer_is_taken_over(shop, method):
    """Left by a request of an earlier release that died before its answer."""
    RequisiteFactory(method=method)  # a second requisite: the rerun can hold 1000.00 too
    body = buy(method)
    shop.post(URL, body, headers={"Idempotency-Key": "dead"})
    IdempotencyRecord.objects.filter(key="dead").update(body=None, status_code=None)
    response = shop.post(URL, body, headers={"Idempotency-Key": "dead"})
    assert response.status_code == 201, response.content
    assert IdempotencyRecord.objects.get(key="dead").status_code == 201


def test_a_request_that_raises_stores_nothing(shop, method, monkeypatch):
    from orders import api

    def boom(*args, **kwargs):
        raise RuntimeError("the work failed half way")

    monkeypatch.setattr(api.services, "order_create", boom)
    response = shop.post(URL, buy(method), headers={"Idempotency-Key": "raised"})
    assert response.status_code == 500
    assert not IdempotencyRecord.objects.filter(key="raised").exists()


def test_keys_are_scoped_to_the_terminal(shop, method):
    other = ApiClient(TerminalFactory(methods=[method]).raw_key)
    RequisiteFactory(method=method)  # a second requisite: both orders can hold 1000.00
    a = shop.post(URL, buy(method, 1000), headers={"Idempotency-Key": "shared"})
    b = other.post(URL, buy(method, 1000), headers={"Idempotency-Key": "shared"})
    assert a.status_code == b.status_code == 201
    assert a.json()["id"] != b.json()["id"]


def test_auth_failures_are_not_stored(anonymous, shop, method):
    anonymous.post(URL, buy(method), headers={"Idempotency-Key": "auth"})
    assert shop.post(URL, buy(method), headers={"Idempotency-Key": "auth"}).status_code == 201


def test_overlong_key_is_400(shop, method):
    response = shop.post(URL, buy(method), headers={"Idempotency-Key": "x" * 256})
    assert response.status_code == 400
    assert Order.objects.count() == 0


def test_a_record_older_than_a_day_is_never_replayed_even_unpurged(shop, method):
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    RequisiteFactory(method=method)  # a second requisite: both orders can hold 1000.00
    body = buy(method)
    first = shop.post(URL, body, headers={"Idempotency-Key": "old"})
    assert first.status_code == 201
    with time_machine.travel(timezone.now() + timedelta(hours=24, minutes=1)):
        assert IdempotencyRecord.objects.filter(key="old").exists()  # not purged
        again = shop.post(URL, body, headers={"Idempotency-Key": "old"})
    assert again.status_code == 201, again.content
    assert "Idempotent-Replayed" not in again
    assert again.json()["id"] != first.json()["id"]
    assert Order.objects.count() == 2
