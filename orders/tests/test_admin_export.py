"""CSV export of orders: the rows the admin list's filters select, streamed."""

import csv
import io
from zoneinfo import ZoneInfo

import pytest

from conftest import buy_body, sell_body
from orders.models import Order


@pytest.fixture
def shop(world):
    return world.api


@pytest.fixture
def operator(client, operator_user):
    assert client.login(username="operator", password="operator-demo-password")
    return client


def exported(response) -> list[dict]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response.streaming
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.startswith("\ufeff")  # the byte order mark a Russian Excel needs for UTF-8
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff")), delimiter=";"))


def listed_ids(operator, query: str) -> list[str]:
    cl = operator.get(f"/admin/orders/order/?{query}").context["cl"]
    return [str(o.pk) for o in cl.result_list]


@pytest.mark.parametrize(
    "query",
    ["", "side__exact=Sell", "status__exact=Cancelled", "q=dup", "o=-5", "side__exact=Buy&o=5"],
)
def test_rows_equal_the_filtered_list(operator, world, shop, query):
    for n, amount in enumerate(["1000.00", "1100.00", "1200.00"]):
        shop.post("/api/v1/order/", buy_body(world, amount=amount, client_order_id=f"dup-{n}"))
    cancelled = shop.post("/api/v1/order/", buy_body(world, amount="1300.00")).json()
    shop.post(f"/api/v1/order/{cancelled['id']}/cancel")
    shop.post("/api/v1/order/", sell_body(world, amount="2000.00"))

    rows = exported(operator.get(f"/admin/orders/order/export.csv?{query}"))
    assert [r["id"] for r in rows] == listed_ids(operator, query)
    assert rows, query


def test_the_list_links_its_export_with_the_same_filters(operator, world):
    html = operator.get("/admin/orders/order/?side__exact=Sell").content.decode()
    assert 'href="/admin/orders/order/export.csv?side__exact=Sell"' in html


def test_a_formula_in_a_merchants_field_is_not_run_by_a_spreadsheet(operator, world, shop):
    shop.post("/api/v1/order/", buy_body(world, client_order_id="=HYPERLINK(1)"))
    (row,) = exported(operator.get("/admin/orders/order/export.csv"))
    assert row["client_order_id"] == "'=HYPERLINK(1)"
    assert row["status"] == "Pending" and row["amount"]


def test_a_russian_spreadsheet_reads_columns_decimal_commas_and_moscow_time(operator, world, shop):
    created = shop.post("/api/v1/order/", buy_body(world, amount="7350.00")).json()
    response = operator.get("/admin/orders/order/export.csv")
    assert "MSK" in response["Content-Disposition"]
    raw = b"".join(response.streaming_content)
    assert raw.startswith(b"\xef\xbb\xbf")
    header = raw.decode("utf-8-sig").splitlines()[0]
    assert header.startswith("id;created_at;terminal;")
    (row,) = exported(operator.get("/admin/orders/order/export.csv"))
    assert row["amount"] == "7350,00" and row["requested_amount"] == "7350,00"
    order = Order.objects.get(pk=created["id"])
    moscow = order.created_at.astimezone(ZoneInfo("Europe/Moscow"))
    assert row["created_at"] == moscow.strftime("%d.%m.%Y %H:%M:%S")
    assert row["expires_at"].count(".") == 2 and "T" not in row["expires_at"]
    assert row["time_zone"] == "MSK"  # the zone named beside the times


def test_anonymous_cannot_export(client, db):
    response = client.get("/admin/orders/order/export.csv")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_an_unknown_filter_goes_back_to_the_list(operator):
    response = operator.get("/admin/orders/order/export.csv?nonsense__exact=1")
    assert response.status_code == 302
    assert response["Location"].endswith("?e=1")
