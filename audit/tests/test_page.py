"""/admin/audit/: the log for operators, filtered, in Russian, as CSV; and an order's
and a dispute's part of it on their admin pages."""

import csv
import io

from audit.models import ActorKind, AuditEntry
from audit.services import audit_record
from demo.testing import buy_body
from disputes.models import Dispute
from orders.models import Order
from orders.tests.world import trader_for

URL = "/admin/audit/"


def shown(response) -> int:
    assert response.status_code == 200, response.content[:300]
    return response.content.decode().count('data-testid="audit-entry"')


def test_only_staff_read_it(client, db):
    response = client.get(URL)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_each_entry_is_shown_with_its_actor_kind_in_russian(operator, shop, world):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    audit_record(actor_kind=ActorKind.SYSTEM, action="test.system")
    audit_record(actor_kind=ActorKind.DEVICE, actor_id="d-1", action="test.device")
    audit_record(actor_kind=ActorKind.MERCHANT, actor_id="m-1", action="test.merchant")
    response = operator.get(URL, headers={"Accept-Language": "ru"})
    assert shown(response) == AuditEntry.objects.count()
    page = response.content.decode()
    for word in ("оператор", "трейдер", "мерчант", "устройство", "система"):
        assert f'data-testid="audit-actor-kind">{word}<' in page
    assert order["id"] in page  # the object's id, whole
    operator.cookies["django_language"] = "en"  # English is the operator's own choice
    english = operator.get(URL).content.decode()
    assert 'data-testid="audit-actor-kind">trader<' in english


def test_filters_by_actor_object_action_and_time(operator, shop, world):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    placed = Order.objects.get(pk=order["id"])
    assert shown(operator.get(URL, {"actor_kind": "trader"})) == 1
    assert shown(operator.get(URL, {"actor_kind": "trader", "actor_id": placed.trader_id})) == 1
    assert shown(operator.get(URL, {"actor_kind": "merchant"})) == 0
    short = order["id"][:8]
    by_object = {"object_type": "orders.order", "object_id": short}
    assert shown(operator.get(URL, by_object)) == 1
    assert shown(operator.get(URL, {"action": "order.confirm"})) == 1
    assert shown(operator.get(URL, {"action": "sign_in"})) == 1
    assert shown(operator.get(URL, {"since": "2999-01-01"})) == 0
    assert shown(operator.get(URL, {"until": "2000-01-01"})) == 0
    assert shown(operator.get(URL, {"since": "2000-01-01", "until": "2999-01-01"})) == (
        AuditEntry.objects.count()
    )
    bad = operator.get(URL, {"since": "yesterday-ish"})
    assert bad.status_code == 200 and "since" in bad.content.decode()
    # well formed but impossible: told as not understood, never a 500
    for since, until in [("2026-13-45", ""), ("2026-01-31 25:00", ""), ("", "2026-02-30")]:
        for extra in ({}, {"format": "csv"}):
            answer = operator.get(URL, {"since": since, "until": until, **extra})
            assert answer.status_code in (200, 400), (since, until, extra)


def test_csv_export_holds_the_filtered_entries_and_is_itself_audited(operator, shop, world):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    response = operator.get(URL, {"actor_kind": "trader", "format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode()
    assert text.startswith("\ufeff")  # a Russian spreadsheet reads it as UTF-8
    rows = list(csv.DictReader(io.StringIO(text[1:]), delimiter=";"))
    assert [(r["actor_kind"], r["action"], r["object_id"]) for r in rows] == [
        ("trader", "order.confirm", order["id"])
    ]
    assert rows[0]["time_zone"] == "MSK" and " " in rows[0]["time"]
    export = AuditEntry.objects.get(action="audit.export")
    assert export.changes == {"filters": {"actor_kind": "trader"}}
    assert 'data-testid="audit-export"' in operator.get(URL).content.decode()


def test_an_orders_page_shows_its_part_of_the_log(operator, shop, world):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    other = shop.post("/api/v1/order/", buy_body(world, amount="1500")).json()
    trader_for(other).post(f"/api/v1/trader/orders/{other['id']}/cancel")
    page = operator.get(f"/admin/orders/order/{order['id']}/change/")
    assert shown(page) == 1
    html = page.content.decode()
    assert "order.confirm" in html and "order.decline" not in html


def test_a_disputes_page_shows_its_part_of_the_log(operator, shop, world):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    opened = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": "1000"}
    )
    dispute = Dispute.objects.get(pk=opened.json()["dispute_id"])
    operator.post(f"/admin/disputes/dispute/resolve/reject/?ids={dispute.pk}", {"comment": "no"})
    page = operator.get(f"/admin/disputes/dispute/{dispute.pk}/change/")
    assert shown(page) == 1
    assert "dispute.reject" in page.content.decode()


def test_the_admin_index_links_it(operator):
    assert f'href="{URL}"' in operator.get("/admin/").content.decode()
