"""Parallel requests with one Idempotency-Key make exactly one resource (traders.md
§24): every endpoint that takes a key, many rounds of same-key requests let loose at
once, then one more retry of each key in turn. Each thread is a request of its own on
its own database connection, as separate web processes would be."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections

from conftest import ApiClient, buy_body, load_demo, sell_body
from disputes.models import Dispute
from forms_ui.models import FormSession
from orders.models import Order

pytestmark = pytest.mark.django_db(transaction=True)

PARALLEL = 6
ROUNDS = 15


def _order_call(demo, round_no):
    body = sell_body(demo, amount="600.00", client_order_id=f"race-{round_no}")
    return lambda client, headers: client.post("/api/v1/order/", body, headers=headers)


def _form_call(demo, round_no):
    body = {
        "order_data": {"client_order_id": f"race-{round_no}", "order_side": "Buy", "amount": "1000"}
    }
    return lambda client, headers: client.post("/api/v1/form/create", body, headers=headers)


def _dispute_call(demo, round_no):
    order = (
        ApiClient("demo-shop-key")
        .post("/api/v1/order/", buy_body(demo, amount=f"{500 + round_no}.00"))
        .json()
    )
    data = {"order_id": order["id"], "amount": "10"}
    return lambda client, headers: client.post_multipart(
        "/api/v1/disputes/create", data, headers=headers
    )


ENDPOINTS = {
    "order": (_order_call, lambda r: Order.objects.filter(client_order_id=f"race-{r}").count()),
    "form": (
        _form_call,
        lambda r: FormSession.objects.filter(client_order_id=f"race-{r}").count(),
    ),
    "dispute": (_dispute_call, lambda r: Dispute.objects.count()),
}


def _all_at_once(call, headers, n):
    gate = threading.Barrier(n)

    def one():
        try:
            client = ApiClient("demo-shop-key")
            gate.wait(10)
            return call(client, headers)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(lambda _: one(), range(n)))


def _in_flight(answer) -> bool:
    return answer.status_code == 409 and answer.json().get("code") == "idempotency_in_flight"


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_parallel_repeats_of_one_key_make_one_resource(endpoint):
    demo = load_demo()
    make_call, count = ENDPOINTS[endpoint]
    disputes_before = 0
    for round_no in range(ROUNDS):
        call = make_call(demo, round_no)
        headers = {"Idempotency-Key": f"{endpoint}-race-{round_no}"}
        answers = _all_at_once(call, headers, PARALLEL)
        answers.append(call(ApiClient("demo-shop-key"), headers))  # a later retry
        made = [a for a in answers if not _in_flight(a) and "Idempotent-Replayed" not in a]
        assert len(made) == 1, [(a.status_code, a.content) for a in answers]
        assert made[0].status_code == 201, made[0].content
        for answer in answers:
            assert _in_flight(answer) or answer.content == made[0].content
        assert answers[-1]["Idempotent-Replayed"] == "true"
        if endpoint == "dispute":
            assert count(round_no) == disputes_before + 1
            disputes_before += 1
        else:
            assert count(round_no) == 1
