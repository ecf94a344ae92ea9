"""Cursor pagination of the order list (starting_after / ending_before) and the
capped total of a busy terminal's list."""

import pytest
from django.test import override_settings

from finance.tests.factories import TerminalFactory
from orders.models import Order
from orders.tests.test_order_list_api import create_many, list_world

URL = "/api/v1/order/"


@pytest.fixture
def world(db):
    return list_world()


def ids_of(page) -> list[str]:
    return [item["id"] for item in page["items"]]


def test_walking_forward_and_back_with_cursors_visits_every_order_once(world):
    shop = world.api
    create_many(shop, world, 7)
    everything = ids_of(shop.get(URL, {"size": 100}).json()["orders"])
    seen, page = [], shop.get(URL, {"size": 3}).json()["orders"]
    while True:
        seen += ids_of(page)
        if not page["has_more"]:
            break
        page = shop.get(URL, {"size": 3, "starting_after": seen[-1]}).json()["orders"]
    assert seen == everything
    back = shop.get(URL, {"size": 3, "ending_before": everything[5]}).json()["orders"]
    assert ids_of(back) == everything[2:5]
    assert back["has_more"] is True and back["total"] == 5
    first = shop.get(URL, {"size": 3, "ending_before": everything[2]}).json()["orders"]
    assert ids_of(first) == everything[:2] and first["has_more"] is False


def test_a_cursor_page_counts_what_lies_beyond_the_cursor(world):
    shop = world.api
    create_many(shop, world, 5)
    everything = ids_of(shop.get(URL).json()["orders"])
    page = shop.get(URL, {"size": 2, "starting_after": everything[0]}).json()["orders"]
    assert (page["total"], page["page"], page["pages"], page["has_more"]) == (4, 1, 2, True)
    assert page["total_is_estimate"] is False
    last = shop.get(URL, {"size": 2, "starting_after": everything[-1]}).json()["orders"]
    assert (last["items"], last["total"], last["has_more"]) == ([], 0, False)


def test_cursors_follow_the_sort_by_amount_ascending_and_the_filters(world):
    shop = world.api
    create_many(shop, world, 6)
    params = {"sort_by": "amount", "sort": "asc", "order_side": "Buy"}
    everything = ids_of(shop.get(URL, params).json()["orders"])
    page = shop.get(URL, {**params, "size": 2, "starting_after": everything[1]}).json()
    assert ids_of(page["orders"]) == everything[2:4]
    amounts = [item["amount"] for item in page["orders"]["items"]]
    assert amounts == sorted(amounts, key=float)


def test_a_cursor_that_is_not_an_order_id_is_400(world):
    shop = world.api
    create_many(shop, world, 1)
    response = shop.get(URL, {"starting_after": "not-an-id"})
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False and "starting_after" in body["errors"]


def test_a_cursor_that_names_no_order_of_the_terminal_is_404(world):
    shop = world.api
    (order_id,) = create_many(shop, world, 1)
    unknown = shop.get(URL, {"ending_before": "00000000-0000-0000-0000-000000000000"})
    assert unknown.status_code == 404 and "ending_before" in unknown.json()["errors"]
    Order.objects.filter(pk=order_id).update(terminal=TerminalFactory())
    response = shop.get(URL, {"starting_after": order_id})
    assert response.status_code == 404
    assert "starting_after" in response.json()["errors"]


def test_both_cursors_give_the_orders_between_them_and_page_is_not_used(world):
    shop = world.api
    create_many(shop, world, 6)
    everything = ids_of(shop.get(URL).json()["orders"])
    params = {"starting_after": everything[0], "ending_before": everything[4], "page": 3}
    between = shop.get(URL, {**params, "size": 10}).json()["orders"]
    assert ids_of(between) == everything[1:4] and between["has_more"] is False
    first_two = shop.get(URL, {**params, "size": 2}).json()["orders"]
    assert ids_of(first_two) == everything[1:3] and first_two["has_more"] is True


@override_settings(ORDER_LIST_COUNT_CAP=4)
def test_a_busy_list_reports_its_capped_total_as_an_estimate(world):
    shop = world.api
    create_many(shop, world, 7)
    page = shop.get(URL, {"size": 2}).json()["orders"]
    assert (page["total"], page["total_is_estimate"], page["pages"]) == (4, True, 2)
    deep = shop.get(URL, {"size": 2, "page": 3}).json()["orders"]
    assert deep["total"] == 7 and deep["has_more"] is True  # at least what it shows
    far = shop.get(URL, {"size": 2, "page": 10**23}).json()["orders"]  # shows nothing
    assert (far["items"], far["total"], far["total_is_estimate"]) == ([], 4, True)
    small = shop.get(URL, {"size": 2, "status": "Cancelled"}).json()["orders"]
    assert (small["total"], small["total_is_estimate"]) == (0, False)


def test_a_listed_row_renders_as_the_order_itself(world):
    """The list renders rows (OrderRow), the rest of the API model instances: the
    same order must come out the same either way."""
    shop = world.api
    from orders.render import OrderRow, render_order, render_rows

    (order_id,) = create_many(shop, world, 1, webhook_url="https://example.com/hook")
    order = Order.objects.select_related("method").get(pk=order_id)
    rows = Order.objects.with_db_clock().filter(pk=order_id).values_list(*OrderRow.COLUMNS)
    assert render_rows(rows) == [render_order(order)]


def test_a_listed_order_and_a_searched_one_are_the_order_itself(world):
    """The list and the search read ids, times, sums and the shown status as text on
    PostgreSQL: each order they show is, field for field, what its own page shows (a
    time on a whole second still with its six digits of fraction, a Pending order past
    its expiry shown Expired, a paid amount and cents kept)."""
    import datetime
    from decimal import Decimal

    shop = world.api
    ids = create_many(shop, world, 4)
    # on a whole second, inside the list's default 24-hour window whenever the test runs
    now = datetime.datetime.now(datetime.UTC)
    whole = now.replace(microsecond=0) - datetime.timedelta(hours=1)
    Order.objects.filter(pk=ids[0]).update(created_at=whole, updated_at=whole)
    past = now - datetime.timedelta(minutes=1)
    Order.objects.filter(pk=ids[1]).update(expires_at=past)
    Order.objects.filter(pk=ids[2]).update(
        status="Completed", paid_amount=Decimal("990.5"), fee_amount=Decimal("49.53")
    )
    listed = {item["id"]: item for item in shop.get(URL, {"size": 50}).json()["orders"]["items"]}
    assert listed[str(ids[0])]["created_at"] == whole.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    assert listed[str(ids[1])]["status"] == "Expired"
    assert listed[str(ids[2])]["paid_amount"] == "990.50"
    assert listed[str(ids[2])]["fee_amount"] == "49.53"
    for order_id in ids:
        alone = shop.get(f"{URL}{order_id}").json()["order"]
        assert listed[str(order_id)] == alone
        found = shop.get(f"{URL}search-by-client-order-id", {"id": alone["client_order_id"]})
        assert found.json()["orders"]["items"] == [alone]
