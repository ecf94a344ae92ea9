"""What the client sends: availability's body is creation's without client_order_id
(one builder makes both)."""

import json

import httpx
import pytest
from paymentsvc_client import Client
from paymentsvc_client.errors import NotFoundError

ANSWER = {
    "success": True,
    "message": "OK",
    "available": True,
    "method_id": "m",
    "amount": "1000.00",
    "fee_amount": "50.00",
}


def test_availability_sends_creations_body_without_client_order_id():
    sent = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        if request.url.path.endswith("/availability"):
            return httpx.Response(200, json=ANSWER)
        # Creation is refused: only the body it carried matters here.
        return httpx.Response(404, json={"success": False, "message": "No", "code": "x"})

    fields = dict(
        order_side="Buy",
        amount="1000.00",
        method_type="SBP",
        nspk_code="100000000111",
        user_id="u1",
        unique_amount=True,
        customer_bank="sberbank",
        extra_field="kept",
    )
    with Client("http://service.test", "key", transport=httpx.MockTransport(answer)) as client:
        client.orders.availability(**fields)
        with pytest.raises(NotFoundError):
            client.orders.create(client_order_id="c-1", **fields)
    availability, creation = sent
    assert creation == {"client_order_id": "c-1", **availability}
    assert list(creation)[:3] == ["client_order_id", "order_side", "amount"]
    assert availability["extra_field"] == "kept" and "customer_name" not in availability
