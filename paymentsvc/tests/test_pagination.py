"""paginate(): totals are right whichever way they are found, and a first page that is
not full is answered without a COUNT."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from conftest import buy_body

URL = "/api/v1/order/"


def create(shop, demo, n):
    for i in range(n):
        response = shop.post(URL, buy_body(demo, amount=1000 + i, client_order_id=f"c-{i}"))
        assert response.status_code == 201, response.content


def listed(shop, **params):
    with CaptureQueriesContext(connection) as queries:
        page = shop.get(URL, params).json()["orders"]
    counted = any("COUNT(" in q["sql"].upper() for q in queries.captured_queries)
    return (page["total"], page["pages"], len(page["items"])), counted


def test_first_page_that_is_not_full_is_counted_without_a_count_query(shop, demo):
    create(shop, demo, 3)
    assert listed(shop, size=5) == ((3, 1, 3), False)


def test_empty_first_page_has_total_zero_and_no_pages(shop, demo):
    assert listed(shop) == ((0, 0, 0), False)


def test_full_first_page_counts_the_rest(shop, demo):
    create(shop, demo, 5)
    assert listed(shop, size=5) == ((5, 1, 5), True)
    assert listed(shop, size=2) == ((5, 3, 2), True)


def test_later_pages_and_pages_past_the_end_keep_the_total(shop, demo):
    create(shop, demo, 5)
    assert listed(shop, size=2, page=3) == ((5, 3, 1), True)
    assert listed(shop, size=2, page=9) == ((5, 3, 0), True)
