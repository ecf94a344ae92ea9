"""paginate(): totals are right whichever way they are found. On the order list the
capped count rides in the page's own statement: a page with rows is one statement,
counted or not; only a page past the end counts on its own."""

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
    """The page's (total, pages, items) and how many statements read the orders."""
    with CaptureQueriesContext(connection) as queries:
        page = shop.get(URL, params).json()["orders"]
    reads = sum('"orders_order"' in q["sql"] or "orders_order o" in q["sql"] for q in queries)
    return (page["total"], page["pages"], len(page["items"])), reads


def test_first_page_that_is_not_full_is_its_own_total(shop, method):
    create(shop, method, 3)
    assert listed(shop, size=5) == ((3, 1, 3), 1)


def test_empty_first_page_has_total_zero_and_no_pages(shop):
    assert listed(shop) == ((0, 0, 0), 1)


def test_full_first_page_counts_the_rest_in_the_same_statement(shop, method):
    create(shop, method, 5)
    # The order list reads one row past the page: a full page with nothing after it
    # is its own total.
    assert listed(shop, size=5) == ((5, 1, 5), 1)
    assert listed(shop, size=2) == ((5, 3, 2), 1)


def test_later_pages_and_pages_past_the_end_keep_the_total(shop, method):
    create(shop, method, 5)
    assert listed(shop, size=2, page=3) == ((5, 3, 1), 1)
    # no row to carry the count: it is read on its own
    assert listed(shop, size=2, page=9) == ((5, 3, 0), 2)
