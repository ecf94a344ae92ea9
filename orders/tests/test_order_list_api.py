from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conftest import buy_body, sell_body
from orders.models import Order
from orders.tests.clock import orders_age
from orders.tests.world import World

URL = "/api/v1/order/"


def list_world() -> World:
    """A shop with 100000.00 deposited and four bank SBP methods, two requisites on each
    (an amount may repeat on a method)."""
    return World.build(
        {"Sberbank SBP": 2, "T-Bank SBP": 2, "Alfa-Bank SBP": 2, "VTB SBP": 2},
        available="100000.00",
    )


@pytest.fixture
def world(db):
    return list_world()


@pytest.fixture
def shop(world):
    return world.api


def create_many(shop, world, n, **extra):
    ids = []
    for i in range(n):
        method = ["Sberbank SBP", "T-Bank SBP", "Alfa-Bank SBP", "VTB SBP"][i % 4]
        response = shop.post(
            URL, buy_body(world, method=method, amount=1000 + i, client_order_id=f"c-{i}", **extra)
        )
        assert response.status_code == 201
        ids.append(response.json()["id"])
    return ids


def test_list_wrapper_and_defaults(shop, world):
    create_many(shop, world, 3)
    body = shop.get(URL).json()
    assert body["success"] is True and isinstance(body["message"], str)
    page = body["orders"]
    assert (page["total"], page["page"], page["size"], page["pages"]) == (3, 1, 10, 1)
    created = [item["created_at"] for item in page["items"]]
    assert created == sorted(created, reverse=True)


def test_pagination_and_page_past_the_end(shop, world):
    create_many(shop, world, 5)
    page = shop.get(URL, {"size": 2, "page": 3}).json()["orders"]
    assert (page["total"], page["pages"], len(page["items"])) == (5, 3, 1)
    past = shop.get(URL, {"size": 2, "page": 9}).json()["orders"]
    assert past["items"] == [] and past["total"] == 5
    # However far past: no number is too large for a page (decisions.md: 200, no items)
    for far in (10**9 + 1, 10**23):
        answer = shop.get(URL, {"size": 100, "page": far})
        assert answer.status_code == 200, answer.content
        body = answer.json()["orders"]
        assert (body["items"], body["page"], body["total"]) == ([], far, 5)


def test_empty_list_has_zero_pages(shop, world):
    page = shop.get(URL).json()["orders"]
    assert (page["total"], page["pages"], page["items"]) == (0, 0, [])


@pytest.mark.parametrize(
    "params",
    [
        {"page": 0},
        {"page": "x"},
        {"size": 0},
        {"size": 101},
        {"sort_by": "fee"},
        {"sort": "up"},
        {"status": "Done"},
        {"order_side": "buy"},
        {"start_date": "yesterday"},
        {"start_date": "2026-02-01T00:00:00Z", "end_date": "2026-01-01T00:00:00Z"},
    ],
)
def test_bad_list_parameters_are_400(shop, world, params):
    response = shop.get(URL, params)
    assert response.status_code == 400
    assert response.json()["success"] is False


def test_end_date_in_the_first_day_of_the_calendar_is_an_empty_page(shop, world):
    response = shop.get(URL, {"end_date": "0001-01-01T23:59:59Z"})
    assert response.status_code == 200
    assert response.json()["orders"]["items"] == []


def test_without_start_date_the_window_opens_24_hours_before_now(shop, world):
    """api.md: start_date defaults to 24 hours before now, also beside an end_date."""
    [made] = create_many(shop, world, 1)
    later = (timezone.now() + timedelta(days=3)).isoformat()
    page = shop.get(URL, {"end_date": later}).json()["orders"]
    assert [o["id"] for o in page["items"]] == [made]
    old = shop.get(URL, {"end_date": "2020-01-01T00:00:00Z"})
    assert old.status_code == 200 and old.json()["orders"]["items"] == []


def test_size_100_is_allowed(shop, world):
    assert shop.get(URL, {"size": 100}).status_code == 200


def test_filters_by_side_status_and_method(shop, world):
    ids = create_many(shop, world, 4)
    shop.post(URL, sell_body(world, amount=1000))
    shop.post(f"{URL}{ids[0]}/cancel")
    assert shop.get(URL, {"order_side": "Sell"}).json()["orders"]["total"] == 1
    assert shop.get(URL, {"status": "Cancelled"}).json()["orders"]["total"] == 1
    assert shop.get(URL, {"status": "Pending"}).json()["orders"]["total"] == 4
    by_method = shop.get(URL, {"payment_method_id": world.method_id("T-Bank SBP")}).json()["orders"]
    assert by_method["total"] == 1 and by_method["items"][0]["method_name"] == "T-Bank SBP"
    assert shop.get(URL, {"payment_method_id": "nope"}).json()["orders"]["total"] == 0


def test_sort_by_amount_ascending(shop, world):
    create_many(shop, world, 4)
    items = shop.get(URL, {"sort_by": "amount", "sort": "asc"}).json()["orders"]["items"]
    assert [i["amount"] for i in items] == ["1000.00", "1001.00", "1002.00", "1003.00"]


def test_default_window_is_the_last_24_hours(shop, world):
    create_many(shop, world, 1)
    orders_age(timedelta(hours=30))
    create_many(shop, world, 1)
    assert shop.get(URL).json()["orders"]["total"] == 1
    old = (timezone.now() - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert shop.get(URL, {"start_date": old}).json()["orders"]["total"] == 2


def test_list_query_count_does_not_grow_with_page_size(shop, world):
    create_many(shop, world, 2)
    with CaptureQueriesContext(connection) as small:
        shop.get(URL, {"size": 2})
    create_many(shop, world, 20, user_id=None)
    with CaptureQueriesContext(connection) as large:
        shop.get(URL, {"size": 100})
    assert len(large.captured_queries) == len(small.captured_queries)


def test_search_by_client_order_id_returns_every_match_in_one_page(shop, world):
    for amount in (1000, 1001, 1002):
        shop.post(URL, buy_body(world, amount=amount, client_order_id="dup"))
    shop.post(URL, buy_body(world, amount=1003, client_order_id="other"))
    body = shop.get(f"{URL}search-by-client-order-id", {"id": "dup"}).json()
    assert body["success"] is True
    page = body["orders"]
    assert page["page"] == 1 and page["total"] == 3 and len(page["items"]) == 3
    assert {i["client_order_id"] for i in page["items"]} == {"dup"}
    limited = shop.get(f"{URL}search-by-client-order-id", {"id": "dup", "size": 2}).json()["orders"]
    assert len(limited["items"]) == 2 and limited["pages"] == 1


def test_search_by_client_order_id_requires_id(shop, world):
    assert shop.get(f"{URL}search-by-client-order-id").status_code == 400
    assert shop.get(f"{URL}search-by-client-order-id", {"id": "x", "size": 101}).status_code == 400


def test_get_order_by_id(shop, world):
    order = shop.post(URL, buy_body(world)).json()
    body = shop.get(f"{URL}{order['id']}").json()
    assert body["success"] is True
    assert body["order"] == {**order, "updated_at": body["order"]["updated_at"]}


def test_a_lookup_is_one_statement_and_shows_an_overdue_order_as_expired(shop, world):
    """One statement reads the order, its method and the database's time (no ORDER BY,
    no second read of the method); an order past its expires_at that the sweep has not
    closed yet is shown Expired by that time, as the ORM's read showed it."""
    order = shop.post(URL, buy_body(world)).json()
    with CaptureQueriesContext(connection) as queries:
        body = shop.get(f"{URL}{order['id']}").json()
    reads = [q["sql"] for q in queries.captured_queries if "orders_order" in q["sql"]]
    assert len(reads) == 1 and "ORDER BY" not in reads[0]
    assert body["order"]["method_name"] == order["method_name"]
    assert body["order"]["status"] == "Pending"
    Order.objects.filter(pk=order["id"]).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert shop.get(f"{URL}{order['id']}").json()["order"]["status"] == "Expired"


@pytest.mark.parametrize("order_id", ["00000000-0000-0000-0000-000000000000", "garbage", "1"])
def test_unknown_or_malformed_order_id_is_404(shop, world, order_id):
    assert shop.get(f"{URL}{order_id}").status_code == 404
    assert shop.post(f"{URL}{order_id}/cancel").status_code == 404


def test_another_terminals_order_is_invisible(shop, world):
    closed_shop = world.other_terminal()
    order = shop.post(URL, buy_body(world, client_order_id="mine")).json()
    assert closed_shop.get(f"{URL}{order['id']}").status_code == 404
    assert closed_shop.post(f"{URL}{order['id']}/cancel").status_code == 404
    assert closed_shop.get(URL).json()["orders"]["total"] == 0
    assert (
        closed_shop.get(f"{URL}search-by-client-order-id", {"id": "mine"}).json()["orders"]["total"]
        == 0
    )
