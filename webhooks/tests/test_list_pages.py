"""The events and deliveries lists at length, paginated like the order list: `total`
counted up to EVENT_LIST_COUNT_CAP (a lower bound with `total_is_estimate` beyond it),
`has_more`, no COUNT for a first page that is not full, and cursor pages
(`starting_after`, `ending_before`) by event id and by delivery id."""

import uuid

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from core.testing import ApiClient
from webhooks.models import WebhookDelivery, WebhookEvent
from webhooks.services import event_record

EVENTS = "/api/v1/events"
DELIVERIES = "/api/v1/webhooks/deliveries"
HOOK = "https://example.com/hook"


@pytest.fixture
def shop(world) -> ApiClient:  # the conftest's world, not the demo set
    return world.shop


def record(terminal, n: int, *, order_id=None, event_type: str = "order.created") -> list[str]:
    """`n` events of the terminal (each with one delivery), oldest first."""
    return [
        event_record(
            terminal=terminal,
            order_id=order_id or uuid.uuid4(),
            event_type=event_type,
            sequence=i + 1,
            data={},
            webhook_url=HOOK,
            actor="system",
        ).pk
        for i in range(n)
    ]


def listed(client, url: str, key: str, **params) -> tuple[dict, bool]:
    """The page and whether answering it ran a COUNT."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, params)
    assert response.status_code == 200, response.content
    counted = any("COUNT(" in q["sql"].upper() for q in queries.captured_queries)
    return response.json()[key], counted


def ids_of(page: dict) -> list:
    return [item["id"] for item in page["items"]]


LISTS = [(EVENTS, "events"), (DELIVERIES, "deliveries")]


@pytest.mark.parametrize("url,key", LISTS)
@override_settings(EVENT_LIST_COUNT_CAP=4)
def test_a_long_list_reports_its_capped_total_as_an_estimate(shop, world, url, key):
    record(world.terminal, 7)
    page, counted = listed(shop, url, key, size=2)
    assert counted
    assert (page["total"], page["total_is_estimate"], page["pages"]) == (4, True, 2)
    assert page["has_more"] is True and len(page["items"]) == 2
    deep, _ = listed(shop, url, key, size=2, page=3)
    assert (deep["total"], deep["total_is_estimate"], deep["has_more"]) == (7, True, True)
    last, _ = listed(shop, url, key, size=2, page=4)
    assert (len(last["items"]), last["total"], last["has_more"]) == (1, 7, False)
    # A first page holding the whole list is its own exact total.
    whole, counted = listed(shop, url, key, size=10)
    assert (whole["total"], whole["total_is_estimate"], whole["pages"]) == (7, False, 1)
    assert whole["has_more"] is False and not counted
    assert set(whole) == {"total", "page", "size", "pages", "items", "has_more"} | {
        "total_is_estimate"
    }


@override_settings(EVENT_LIST_COUNT_CAP=4)
def test_a_filter_under_the_cap_counts_exactly(shop, world):
    record(world.terminal, 6)
    record(world.terminal, 3, event_type="order.expired")
    page, counted = listed(shop, EVENTS, "events", type="order.expired", size=2)
    assert counted
    assert (page["total"], page["total_is_estimate"], page["pages"]) == (3, False, 2)


@pytest.mark.parametrize("url,key", LISTS)
def test_a_first_page_that_is_not_full_is_answered_without_a_count(shop, world, url, key):
    record(world.terminal, 3)
    page, counted = listed(shop, url, key, size=5)
    assert (page["total"], page["pages"], len(page["items"]), page["has_more"]) == (
        3,
        1,
        3,
        False,
    )
    assert not counted
    exact, counted = listed(shop, url, key, size=3)
    assert (exact["total"], exact["has_more"], counted) == (3, False, False)
    more, counted = listed(shop, url, key, size=2)
    assert (more["total"], more["pages"], more["has_more"], counted) == (3, 2, True, True)
    empty, counted = listed(world.another_terminal(), url, key)
    assert (empty["total"], empty["pages"], empty["items"], counted) == (0, 0, [], False)


def walk(client, url: str, key: str, size: int, **params) -> list:
    """Every item id, page after page by `starting_after`, as has_more leads."""
    seen, page = [], client.get(url, {**params, "size": size}).json()[key]
    while True:
        seen += ids_of(page)
        if not page["has_more"]:
            return seen
        page = client.get(url, {**params, "size": size, "starting_after": seen[-1]}).json()[key]


def test_event_cursors_walk_forward_and_back_even_within_one_instant(shop, world):
    record(world.terminal, 7)
    # Three events of the same instant: the id orders them (newest first: larger id).
    same = WebhookEvent.objects.filter(terminal=world.terminal).order_by("created_at")[2:5]
    instant = same[0].created_at
    WebhookEvent.objects.filter(pk__in=[e.pk for e in same]).update(created_at=instant)
    everything = ids_of(shop.get(EVENTS, {"size": 100}).json()["events"])
    assert len(everything) == 7
    assert walk(shop, EVENTS, "events", 3) == everything
    assert walk(shop, EVENTS, "events", 1) == everything
    back = shop.get(EVENTS, {"size": 3, "ending_before": everything[5]}).json()["events"]
    assert ids_of(back) == everything[2:5]
    assert (back["has_more"], back["total"], back["page"]) == (True, 5, 1)
    first = shop.get(EVENTS, {"size": 3, "ending_before": everything[2]}).json()["events"]
    assert ids_of(first) == everything[:2] and first["has_more"] is False


def test_an_event_cursor_page_counts_what_lies_beyond_it(shop, world):
    record(world.terminal, 5)
    everything = ids_of(shop.get(EVENTS).json()["events"])
    page = shop.get(EVENTS, {"size": 2, "starting_after": everything[0], "page": 9}).json()
    page = page["events"]
    assert ids_of(page) == everything[1:3]
    assert (page["total"], page["page"], page["pages"], page["has_more"]) == (4, 1, 2, True)
    assert page["total_is_estimate"] is False
    last = shop.get(EVENTS, {"starting_after": everything[-1]}).json()["events"]
    assert (last["items"], last["total"], last["has_more"]) == ([], 0, False)
    params = {"starting_after": everything[0], "ending_before": everything[4]}
    between = shop.get(EVENTS, {**params, "size": 10}).json()["events"]
    assert ids_of(between) == everything[1:4] and between["has_more"] is False


def test_an_orders_history_pages_by_sequence_with_cursors(shop, world):
    order_id = uuid.uuid4()
    record(world.terminal, 4, order_id=order_id)
    record(world.terminal, 2)
    history = shop.get(EVENTS, {"order_id": order_id}).json()["events"]
    assert [e["sequence"] for e in history["items"]] == [4, 3, 2, 1]
    assert walk(shop, EVENTS, "events", 1, order_id=order_id) == ids_of(history)
    older = shop.get(
        EVENTS, {"order_id": order_id, "size": 2, "starting_after": ids_of(history)[0]}
    ).json()["events"]
    assert [e["sequence"] for e in older["items"]] == [3, 2] and older["has_more"] is True


def test_event_cursors_follow_the_filters(shop, world):
    record(world.terminal, 3)
    record(world.terminal, 3, event_type="order.expired")
    expired = ids_of(shop.get(EVENTS, {"type": "order.expired"}).json()["events"])
    assert walk(shop, EVENTS, "events", 1, type="order.expired") == expired


def test_delivery_cursors_walk_forward_and_back(shop, world):
    record(world.terminal, 5)
    everything = ids_of(shop.get(DELIVERIES, {"size": 100}).json()["deliveries"])
    # newest first: the ids are numbers written as text ("100" comes after "99")
    assert everything == sorted(everything, key=int, reverse=True) and len(everything) == 5
    assert walk(shop, DELIVERIES, "deliveries", 2) == everything
    back = shop.get(DELIVERIES, {"size": 2, "ending_before": everything[3]}).json()
    assert ids_of(back["deliveries"]) == everything[1:3]
    assert back["deliveries"]["has_more"] is True
    page = shop.get(DELIVERIES, {"size": 2, "starting_after": everything[0]}).json()
    page = page["deliveries"]
    assert set(page["items"][0]) >= {"id", "event_id", "event_type", "order_id", "url"}
    assert (page["total"], page["pages"], page["has_more"]) == (4, 2, True)


def test_another_terminals_event_as_a_cursor_is_a_404(shop, world):
    record(world.terminal, 1)
    (theirs,) = record(world.other, 1)
    for field in ("starting_after", "ending_before"):
        response = shop.get(EVENTS, {field: theirs})
        assert response.status_code == 404
        assert response.json() == {
            "success": False,
            "message": f"{field} is not an event of this terminal",
            "code": "event_not_found",
            "errors": {field: ["Not an event of this terminal"]},
        }
    assert shop.get(EVENTS, {"starting_after": "msg_unknown"}).status_code == 404


def test_another_terminals_delivery_as_a_cursor_is_a_404(shop, world):
    record(world.terminal, 1)
    record(world.other, 1)
    theirs = WebhookDelivery.objects.get(terminal=world.other).pk
    response = shop.get(DELIVERIES, {"ending_before": theirs})
    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "message": "ending_before is not a delivery of this terminal",
        "code": "delivery_not_found",
        "errors": {"ending_before": ["Not a delivery of this terminal"]},
    }
    assert shop.get(DELIVERIES, {"starting_after": 10**12}).status_code == 404


@pytest.mark.parametrize(
    "url,cursor",
    [
        (EVENTS, "x" * 41),
        (DELIVERIES, "abc"),
        (DELIVERIES, "0"),
        (DELIVERIES, "1.5"),
        (DELIVERIES, "99999999999999999999999"),
    ],
)
def test_a_cursor_that_cannot_be_an_id_is_400(shop, url, cursor):
    for field in ("starting_after", "ending_before"):
        response = shop.get(url, {field: cursor})
        assert response.status_code == 400
        body = response.json()
        assert (body["success"], body["code"]) == (False, "validation_error")
        assert field in body["errors"]
