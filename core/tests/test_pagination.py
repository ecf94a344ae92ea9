"""paginate(): totals are right whichever way they are found, and a first page that is
not full (or, on the order list, a full one with nothing after it) is answered without a
COUNT."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.testing import ApiClient
from finance.tests.factories import TerminalFactory
from orders.tests.factories import RequisiteFactory

URL = "/api/v1/order/"


@pytest.fixture
def method(db):
    return RequisiteFactory().method


@pytest.fixture
def shop(method) -> ApiClient:
    return ApiClient(TerminalFactory(methods=[method]).raw_key)


def create(shop, method, n):
    for i in range(n):
        body = {
            "client_order_id": f"c-{i}",
            "order_side": "Buy",
            "payment_method_id": str(method.pk),
            "amount": 1000 + i,
        }
        response = shop.post(URL, body)
        assert response.status_code == 201, response.content


def listed(shop, **params):
    with CaptureQueriesContext(connection) as queries:
        page = shop.get(URL, params).json()["orders"]
    counted = any("COUNT(" in q["sql"].upper() for q in queries.captured_queries)
    return (page["total"], page["pages"], len(page["items"])), counted


def test_first_page_that_is_not_full_is_counted_without_a_count_query(shop, method):
    create(shop, method, 3)
    assert listed(shop, size=5) == ((3, 1, 3), False)


def test_empty_first_page_has_total_zero_and_no_pages(shop):
    assert listed(shop) == ((0, 0, 0), False)


def test_full_first_page_counts_the_rest(shop, method):
    create(shop, method, 5)
    # The order list reads one row past the page: a full page with nothing after it
    # is its own total, without a COUNT.
    assert listed(shop, size=5) == ((5, 1, 5), False)
    assert listed(shop, size=2) == ((5, 3, 2), True)


def test_later_pages_and_pages_past_the_end_keep_the_total(shop, method):
    create(shop, method, 5)
    assert listed(shop, size=2, page=3) == ((5, 3, 1), True)
    assert listed(shop, size=2, page=9) == ((5, 3, 0), True)
