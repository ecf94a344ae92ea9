"""Receipts attached by the payer on the page, read by the order's trader and shown
with a dispute (docs/form.md#receipts), through the test client and the real storage API."""

import pytest

from core.testing import ApiClient, operator_user_create
from disputes.tests import files as f
from disputes.tests.conftest import evidence_storage  # noqa: F401 (autouse fixture)
from forms_ui.models import FormSession
from orders.models import Order, Trader
from orders.tests.world import trader_for


@pytest.fixture
def shop(world):
    return world.api


def requisites_page(shop, **order_data) -> FormSession:
    data = {"client_order_id": "r-1", "order_side": "Buy", "amount": "1000"}
    data.update(order_data)
    body = {"order_data": {**data, "button_name": "SberPay"}}
    session_id = shop.post("/api/v1/form/create", body).json()["form_data"]["session_id"]
    return FormSession.objects.get(pk=session_id)


def attach(client, session, upload, lang="en"):
    return client.post("/form/receipt", {"session_id": session.pk, "lang": lang, "receipt": upload})


def other_trader(order_id) -> ApiClient:
    mine = trader_for({"id": str(order_id)})
    return next(
        ApiClient(f"trader-key-{pk}")
        for pk in Trader.objects.values_list("pk", flat=True)
        if f"trader-key-{pk}" != mine.key
    )


def test_a_receipt_is_listed_and_downloaded_byte_for_byte_by_the_orders_trader(shop, client):
    session = requisites_page(shop)
    page = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="receipt-input"' in page and 'data-testid="receipt-submit"' in page
    upload = f.png("bank-screen.png")
    content = upload.read()
    upload.seek(0)
    response = attach(client, session, upload)
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert 'data-testid="receipt-uploaded"' in page and "bank-screen.png" in page

    order = Order.objects.get(pk=session.order_id)
    assert order.receipts_count == 1
    assert shop.get(f"/api/v1/order/{order.pk}").json()["order"]["receipts_count"] == 1

    trader = trader_for({"id": str(order.pk)})
    listed = trader.get(f"/api/v1/trader/orders/{order.pk}/receipts").json()
    assert listed["success"] is True and len(listed["receipts"]) == 1
    item = listed["receipts"][0]
    assert item["content_type"] == "image/png" and item["size"] == len(content)
    assert set(item) == {"id", "content_type", "size", "uploaded_at"}

    got = trader.get(f"/api/v1/trader/orders/{order.pk}/receipts/{item['id']}")
    assert got.status_code == 200 and got["Content-Type"] == "image/png"
    assert got["Content-Disposition"].startswith("attachment")
    assert b"".join(got.streaming_content) == content

    stranger = other_trader(order.pk)
    assert stranger.get(f"/api/v1/trader/orders/{order.pk}/receipts").status_code == 404
    missing = stranger.get(f"/api/v1/trader/orders/{order.pk}/receipts/{item['id']}")
    assert missing.status_code == 404 and missing.json()["success"] is False
    assert trader.get(f"/api/v1/trader/orders/{order.pk}/receipts/99999").status_code == 404


@pytest.mark.parametrize(
    "upload, reason",
    [
        (f.elf_as_png, "type"),
        (f.text_file, "type"),
        (f.svg_script, "type"),
        (f.mp4, "type"),
        (f.empty, "empty"),
        (lambda: f.png(pad_to=f.MB5 + 1), "too_large"),
        (f.huge_png, "too_large"),
    ],
)
def test_a_refused_file_is_explained_on_the_page_and_nothing_is_stored(
    shop, client, upload, reason
):
    session = requisites_page(shop)
    response = attach(client, session, upload())
    page = response.content.decode()
    assert response.status_code in (400, 413)
    assert 'data-testid="receipt-error"' in page and f'data-reason="{reason}"' in page
    assert f.stored_files() == set()
    assert Order.objects.get(pk=session.order_id).receipts_count == 0


def test_the_refusal_speaks_the_pages_language(shop, client):
    session = requisites_page(shop)
    page = attach(client, session, f.elf_as_png(), lang="ru").content.decode()
    assert "Принимаются только изображения" in page


def test_at_most_three_receipts_and_a_pdf_is_fine(shop, client):
    session = requisites_page(shop)
    for upload in (f.png(), f.jpeg(), f.pdf()):
        assert attach(client, session, upload).status_code == 302
    page = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="receipt-input"' not in page  # nothing more to attach
    response = attach(client, session, f.png())
    assert response.status_code == 400 and 'data-reason="too_many"' in response.content.decode()
    assert Order.objects.get(pk=session.order_id).receipts_count == 3
    assert len(f.stored_files()) == 3


def test_receipts_can_be_attached_while_the_payment_is_checked_not_after(shop, client):
    session = requisites_page(shop)
    client.post("/form/paid", {"session_id": session.pk})
    assert attach(client, session, f.png()).status_code == 302
    trader_for({"id": str(session.order_id)}).post(
        f"/api/v1/trader/orders/{session.order_id}/confirm"
    )
    response = attach(client, session, f.png())
    assert response.status_code == 302  # back to the page, which shows the success screen
    assert Order.objects.get(pk=session.order_id).receipts_count == 1


def test_a_dispute_opened_later_shows_the_receipts_to_operators(shop, client):
    client.cookies["django_language"] = "en"  # the page's words, in English
    session = requisites_page(shop)
    upload = f.png("paid.png")
    content = upload.read()
    upload.seek(0)
    attach(client, session, upload)
    opened = shop.post_multipart(
        "/api/v1/disputes/create",
        {
            "order_id": str(session.order_id),
            "amount": "1000",
            "files": [f.pdf(f"m{i}.pdf") for i in range(5)],
        },
    )
    assert opened.status_code == 201, opened.content  # 5 merchant files beside the receipt
    assert len(opened.json()["dispute_files"]) == 5
    operator = client
    operator_user_create()
    assert operator.login(username="operator", password="operator-demo-password")
    operator.cookies["django_language"] = "en"  # this page's words, in English
    change = operator.get(f"/admin/disputes/dispute/{opened.json()['dispute_id']}/change/")
    html = change.content.decode()
    assert "Payer&#x27;s receipts" in html or "Payer's receipts" in html
    receipt_id = Order.objects.get(pk=session.order_id).receipts.get().pk
    url = f"/admin/disputes/dispute/receipt/{receipt_id}/"
    assert url in html
    got = operator.get(url)
    assert got.status_code == 200 and b"".join(got.streaming_content) == content


def test_a_receipt_post_needs_its_csrf_token(shop):
    from django.test import Client

    session = requisites_page(shop)
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/form/receipt", {"session_id": session.pk, "receipt": f.png()})
    assert response.status_code == 403
    assert Order.objects.get(pk=session.order_id).receipts_count == 0
    assert f.stored_files() == set()


def test_the_admin_speaks_russian_to_an_operator_who_asks_for_it(client, shop):
    operator_user_create()
    assert client.login(username="operator", password="operator-demo-password")
    # Russian whatever the browser asks for; English by the header's switch.
    russian = client.get("/admin/", headers={"Accept-Language": "en-US"})
    assert "Выйти" in russian.content.decode()
    client.post("/admin/i18n/setlang/", {"language": "en", "next": "/admin/"})
    english = client.get("/admin/", headers={"Accept-Language": "ru-RU,ru;q=0.9"})
    assert "Log out" in english.content.decode()
    api = shop.get("/api/v1/order/not-a-uuid", headers={"Accept-Language": "ru"})
    assert api.json()["success"] is False and not any("а" <= c <= "я" for c in api.content.decode())
