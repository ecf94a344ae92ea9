"""GET /api/v1/disputes/search (docs/disputes.md#search-disputes)."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from conftest import buy_body
from disputes.models import Dispute
from disputes.services import dispute_resolve

URL = "/api/v1/disputes/search"
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def open_dispute(client, world, n, claimed="10.50"):
    order = client.post(
        "/api/v1/order/", buy_body(world, amount=str(1000 + n), client_order_id=f"c-{n}")
    ).json()
    body = client.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": claimed}
    ).json()
    return order, body


def data(client, params=None):
    response = client.get(URL, params)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["success"] is True and isinstance(body["message"], str)
    return body["data"]


def ids(page):
    return [item["dispute_id"] for item in page["items"]]


def test_an_item_shows_the_orders_amount_as_a_number(shop, world):
    order, created = open_dispute(shop, world, 234, claimed="10.50")
    page = data(shop)
    assert (page["total"], page["page"], page["pages"], page["size"]) == (1, 1, 1, 10)
    item = page["items"][0]
    assert item == {
        "dispute_id": created["dispute_id"],
        "order_id": order["id"],
        "client_order_id": "c-234",
        "amount": 1234,
        "currency": "RUB",
        "processed": False,
        "resolution": None,
        "created_at": item["created_at"],
    }
    assert isinstance(item["amount"], int | float) and not isinstance(item["amount"], bool)
    assert ISO_UTC.match(item["created_at"])


def test_no_disputes_is_an_empty_page(shop, world):
    assert data(shop) == {"items": [], "total": 0, "page": 1, "pages": 0, "size": 10}


def test_newest_first_and_paginated(shop, world):
    made = [open_dispute(shop, world, n)[1]["dispute_id"] for n in range(12)]
    newest_first = list(reversed(made))
    first = data(shop)
    assert (first["total"], first["pages"], first["size"]) == (12, 2, 10)
    assert ids(first) == newest_first[:10]
    second = data(shop, {"page": 2})
    assert ids(second) == newest_first[10:]
    assert ids(data(shop, {"size": 5, "page": 3})) == newest_first[10:]
    past_end = data(shop, {"page": 9})
    assert past_end["items"] == [] and past_end["total"] == 12
    assert len(data(shop, {"size": 100})["items"]) == 12


def test_newest_first_follows_created_at(shop, world):
    _, a = open_dispute(shop, world, 1)
    _, b = open_dispute(shop, world, 2)
    Dispute.objects.filter(pk=b["dispute_id"]).update(created_at=datetime(2020, 1, 1, tzinfo=UTC))
    assert ids(data(shop)) == [a["dispute_id"], b["dispute_id"]]


def test_filter_by_order_id(shop, world):
    order, created = open_dispute(shop, world, 1)
    open_dispute(shop, world, 2)
    assert ids(data(shop, {"order_id": order["id"]})) == [created["dispute_id"]]
    assert data(shop, {"order_id": "not-a-uuid"})["total"] == 0
    assert data(shop, {"order_id": "00000000-0000-0000-0000-000000000000"})["total"] == 0


def test_filter_by_dispute_id(shop, world):
    _, created = open_dispute(shop, world, 1)
    open_dispute(shop, world, 2)
    assert ids(data(shop, {"dispute_id": created["dispute_id"]})) == [created["dispute_id"]]
    for nothing in ("abc", "0", "-1", "99999999", "9" * 30, "١٢"):
        assert data(shop, {"dispute_id": nothing})["total"] == 0


def test_filter_by_processed_and_resolution_is_shown(shop, world):
    _, a = open_dispute(shop, world, 1)
    _, b = open_dispute(shop, world, 2)
    _, c = open_dispute(shop, world, 3)
    dispute_resolve(
        dispute=Dispute.objects.get(pk=a["dispute_id"]), accept=False, comment="x", actor="op"
    )
    dispute_resolve(
        dispute=Dispute.objects.get(pk=b["dispute_id"]), accept=True, comment="x", actor="op"
    )
    done = data(shop, {"processed": "true"})
    assert {i["dispute_id"]: (i["processed"], i["resolution"]) for i in done["items"]} == {
        a["dispute_id"]: (True, "rejected"),
        b["dispute_id"]: (True, "accepted"),
    }
    assert ids(data(shop, {"processed": "false"})) == [c["dispute_id"]]
    assert data(shop, {"processed": "1"})["total"] == 2
    assert data(shop, {"processed": "False"})["total"] == 1


def test_filter_by_creation_period_inclusive(shop, world):
    _, a = open_dispute(shop, world, 1)
    _, b = open_dispute(shop, world, 2)
    t = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    Dispute.objects.filter(pk=a["dispute_id"]).update(created_at=t)
    Dispute.objects.filter(pk=b["dispute_id"]).update(created_at=t + timedelta(days=1))
    assert ids(data(shop, {"start_date": "2026-03-01T12:00:00Z"})) == [
        b["dispute_id"],
        a["dispute_id"],
    ]
    assert ids(data(shop, {"start_date": "2026-03-01T12:00:01Z"})) == [b["dispute_id"]]
    assert ids(data(shop, {"end_date": "2026-03-01T12:00:00Z"})) == [a["dispute_id"]]
    assert ids(
        data(shop, {"start_date": "2026-03-02T00:00:00+03:00", "end_date": "2026-03-03T00:00:00Z"})
    ) == [b["dispute_id"]]
    assert data(shop, {"start_date": "2026-03-05T00:00:00Z"})["total"] == 0


@pytest.mark.parametrize(
    "params",
    [
        {"processed": "maybe"},
        {"processed": ""},
        {"processed": "yes"},
        {"page": 0},
        {"page": "x"},
        {"size": 0},
        {"size": 101},
        {"start_date": "x"},
        {"end_date": "2026-13-01"},
        {"start_date": "2026-02-01T00:00:00Z", "end_date": "2026-01-01T00:00:00Z"},
    ],
)
def test_bad_parameters_are_400(shop, world, params):
    response = shop.get(URL, params)
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False and body["code"] == "validation_error" and body["errors"]


def test_only_the_callers_disputes_are_listed(shop, closed_shop, world):
    order, created = open_dispute(shop, world, 1)
    assert data(closed_shop)["total"] == 0
    assert data(closed_shop, {"dispute_id": created["dispute_id"]})["total"] == 0
    assert data(closed_shop, {"order_id": order["id"]})["total"] == 0
    assert data(shop)["total"] == 1


def test_route_also_answers_with_a_trailing_slash(shop, world):
    open_dispute(shop, world, 1)
    assert shop.get(URL + "/").json()["data"]["total"] == 1


def test_without_a_key_is_401(anonymous, world):
    assert anonymous.get(URL).status_code == 401
