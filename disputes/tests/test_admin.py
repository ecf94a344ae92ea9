"""The operators' dispute queue in the admin, through the test client as an operator
(disputes/tests/conftest.py)."""

import re
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from conftest import buy_body
from disputes.models import Dispute
from finance.models import Balance
from finance.services import ledger_check
from finance.tests.factories import TerminalFactory
from orders.models import Order

from . import files as f

QUEUE = "/admin/disputes/dispute/"


def open_dispute(shop, world, n=0, amount="1000", evidence=None):
    order = shop.post(
        "/api/v1/order/", buy_body(world, amount=str(1000 + n), client_order_id=f"shop-{n}")
    ).json()
    data = {"order_id": order["id"], "amount": amount}
    if evidence:
        data["files"] = evidence
    response = shop.post_multipart("/api/v1/disputes/create", data)
    assert response.status_code == 201, response.content
    return order, Dispute.objects.get(pk=response.json()["dispute_id"])


def listed(response):
    assert response.status_code == 200
    return [d.pk for d in response.context["cl"].result_list]


# --- queue -------------------------------------------------------------------------------


def test_the_queue_opens_newest_first_and_filters_what_waits(shop, world, operator):
    """Lists open newest first (traders.md §23); what still waits is one filter away."""
    _, old = open_dispute(shop, world, 1)
    _, done = open_dispute(shop, world, 2)
    _, new = open_dispute(shop, world, 3)
    operator.post(f"/admin/disputes/dispute/resolve/reject/?ids={done.pk}", {"comment": "no"})
    assert listed(operator.get(QUEUE)) == [new.pk, done.pk, old.pk]
    assert listed(operator.get(QUEUE, {"processed__exact": "0"})) == [new.pk, old.pk]


def test_the_queue_filters_by_processed_resolution_and_terminal(shop, world, operator):
    _, a = open_dispute(shop, world, 1)
    _, b = open_dispute(shop, world, 2)
    operator.post(f"/admin/disputes/dispute/resolve/accept/?ids={a.pk}", {"comment": "ok"})
    assert listed(operator.get(QUEUE, {"processed__exact": "0"})) == [b.pk]
    assert listed(operator.get(QUEUE, {"processed__exact": "1"})) == [a.pk]
    assert listed(operator.get(QUEUE, {"resolution__exact": "accepted"})) == [a.pk]
    assert listed(operator.get(QUEUE, {"resolution__exact": "rejected"})) == []
    assert set(listed(operator.get(QUEUE, {"terminal__id__exact": world.shop.pk}))) == {a.pk, b.pk}
    assert listed(operator.get(QUEUE, {"terminal__id__exact": TerminalFactory().pk})) == []


def test_the_queue_searches_by_order_id_dispute_id_and_client_order_id(shop, world, operator):
    order, a = open_dispute(shop, world, 1)
    _, b = open_dispute(shop, world, 2)
    assert listed(operator.get(QUEUE, {"q": order["id"]})) == [a.pk]
    assert listed(operator.get(QUEUE, {"q": order["id"].upper()})) == [a.pk]
    assert listed(operator.get(QUEUE, {"q": "shop-2"})) == [b.pk]
    assert b.pk in listed(operator.get(QUEUE, {"q": str(b.pk)}))
    for nothing in ("nothing-like-this", "9" * 40):
        assert listed(operator.get(QUEUE, {"q": nothing})) == []


def test_the_queue_search_keeps_the_active_filters(shop, world, operator):
    order, a = open_dispute(shop, world, 1)
    operator.post(f"/admin/disputes/dispute/resolve/reject/?ids={a.pk}", {"comment": "no"})
    assert listed(operator.get(QUEUE, {"q": order["id"], "processed__exact": "0"})) == []


def test_disputes_cannot_be_added_or_deleted_in_the_admin(shop, world, operator):
    _, dispute = open_dispute(shop, world)
    assert operator.get(QUEUE + "add/").status_code == 403
    assert operator.get(f"{QUEUE}{dispute.pk}/delete/").status_code == 403


# --- the dispute page ------------------------------------------------------------------------


def test_the_dispute_page_shows_the_order_and_the_evidence_read_only(shop, world, operator):
    order, dispute = open_dispute(
        shop, world, 7, amount="800", evidence=[f.png("screen.png"), f.pdf("bank.pdf")]
    )
    page = operator.get(f"{QUEUE}{dispute.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    for shown in (order["id"], "shop-7", "Buy", "Pending", "1007.00", "800.00", "screen.png"):
        assert shown in html
    png, pdf = dispute.files.order_by("pk")
    assert f'src="/admin/disputes/dispute/evidence/{png.pk}/?inline=1"' in html
    assert f'href="/admin/disputes/dispute/evidence/{pdf.pk}/"' in html
    for stored in (png.file.name, pdf.file.name):  # named, never linked to directly
        assert f'href="{stored}' not in html and f'href="/{stored}' not in html
        assert f'src="/{stored}' not in html
    assert 'name="amount"' not in html and 'name="comment"' not in html
    assert 'name="_save"' not in html  # nothing to save: decisions go through accept/reject
    assert f'href="/admin/disputes/dispute/resolve/accept/?ids={dispute.pk}"' in html
    assert f'href="/admin/disputes/dispute/resolve/reject/?ids={dispute.pk}"' in html
    operator.post(f"{QUEUE}{dispute.pk}/change/", {"amount": "1", "processed": "on"})
    dispute.refresh_from_db()
    assert (dispute.amount, dispute.processed) == (Decimal("800.00"), False)


# --- evidence download -----------------------------------------------------------------------


def test_evidence_downloads_stream_from_storage_to_the_operator(shop, world, operator):
    pdf_upload = f.pdf()
    sent = pdf_upload.read()
    pdf_upload.seek(0)
    _, dispute = open_dispute(shop, world, evidence=[f.png(), pdf_upload])
    png, pdf = dispute.files.order_by("pk")
    download = operator.get(f"{QUEUE}evidence/{pdf.pk}/")
    assert download.status_code == 200 and download.streaming
    assert b"".join(download.streaming_content) == sent
    assert download["Content-Type"] == "application/pdf"
    assert download["Content-Disposition"].startswith("attachment")
    assert download["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in download["Content-Security-Policy"]
    preview = operator.get(f"{QUEUE}evidence/{png.pk}/?inline=1")
    assert preview["Content-Type"] == "image/png"
    assert preview["Content-Disposition"].startswith("inline")
    assert b"".join(preview.streaming_content).startswith(b"\x89PNG")
    # only images are ever shown inline
    pdf_inline = operator.get(f"{QUEUE}evidence/{pdf.pk}/?inline=1")
    assert pdf_inline["Content-Disposition"].startswith("attachment")
    assert operator.get(f"{QUEUE}evidence/999999/").status_code == 404


def test_anonymous_users_cannot_download_evidence(shop, world, client):
    _, dispute = open_dispute(shop, world, evidence=[f.png()])
    response = client.get(f"{QUEUE}evidence/{dispute.files.get().pk}/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_a_signed_in_user_who_is_not_staff_cannot_download_evidence(shop, world, client):
    _, dispute = open_dispute(shop, world, evidence=[f.png()])
    get_user_model().objects.create_user("merchant-person", password="pw-12345678")
    assert client.login(username="merchant-person", password="pw-12345678")
    response = client.get(f"{QUEUE}evidence/{dispute.files.get().pk}/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_staff_without_dispute_permissions_cannot_download_evidence(shop, world, client):
    _, dispute = open_dispute(shop, world, evidence=[f.png()])
    user = get_user_model().objects.create_user("clerk", password="pw-12345678", is_staff=True)
    assert client.login(username="clerk", password="pw-12345678")
    assert client.get(f"{QUEUE}evidence/{dispute.files.get().pk}/").status_code == 404
    user.user_permissions.add(Permission.objects.get(codename="view_dispute"))
    assert client.get(f"{QUEUE}evidence/{dispute.files.get().pk}/").status_code == 200


# --- accept and reject -----------------------------------------------------------------------


def run_action(operator, action, disputes, comment, **extra):
    start = operator.post(QUEUE, {"action": action, "_selected_action": [d.pk for d in disputes]})
    assert start.status_code == 302
    confirm_url = start["Location"]
    assert "/resolve/" in confirm_url
    page = operator.get(confirm_url)
    assert page.status_code == 200
    assert 'name="comment"' in page.content.decode()
    return operator.post(confirm_url, {"comment": comment, **extra}, follow=True)


def test_accept_asks_for_a_comment_then_completes_the_buy(shop, world, operator):
    order, dispute = open_dispute(shop, world, amount="800")
    # 800 on an order of 1000 is 20% off: a second confirmation naming the money.
    unconfirmed = run_action(operator, "accept", [dispute], "Bank statement matches")
    page = unconfirmed.content.decode()
    assert "claims 800.00 RUB on an order of 1000.00 RUB" in page
    dispute.refresh_from_db()
    assert not dispute.processed
    assert Order.objects.get(pk=order["id"]).status == "Pending"
    done = run_action(operator, "accept", [dispute], "Bank statement matches", confirm_money="on")
    assert done.status_code == 200 and "Accepted 1 dispute." in done.content.decode()
    dispute.refresh_from_db()
    assert (dispute.processed, dispute.resolution, dispute.comment, dispute.resolved_by) == (
        True,
        "accepted",
        "Bank statement matches",
        "operator",
    )
    o = Order.objects.get(pk=order["id"])
    assert (o.status, o.paid_amount) == ("Completed", Decimal("800.00"))
    assert Balance.objects.get(terminal=world.shop).available == Decimal("100760.00")
    assert ledger_check() == []


def test_a_claim_within_ten_percent_needs_no_second_confirmation(shop, world, operator):
    order, dispute = open_dispute(shop, world, amount="950")
    done = run_action(operator, "accept", [dispute], "ok")
    assert "Accepted 1 dispute." in done.content.decode()
    assert Order.objects.get(pk=order["id"]).paid_amount == Decimal("950.00")


def test_reject_asks_for_a_comment_and_moves_no_money(shop, world, operator):
    order, dispute = open_dispute(shop, world)
    done = run_action(operator, "reject", [dispute], "No proof of payment")
    assert "Rejected 1 dispute." in done.content.decode()
    dispute.refresh_from_db()
    assert (dispute.processed, dispute.resolution, dispute.comment) == (
        True,
        "rejected",
        "No proof of payment",
    )
    assert Order.objects.get(pk=order["id"]).status == "Pending"
    assert Balance.objects.get(terminal=world.shop).available == Decimal("100000.00")
    assert ledger_check() == []


def test_a_decision_without_a_comment_is_not_taken(shop, world, operator):
    _, dispute = open_dispute(shop, world)
    url = f"{QUEUE}resolve/accept/?ids={dispute.pk}"
    response = operator.post(url, {"comment": ""})
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    dispute.refresh_from_db()
    assert not dispute.processed


def test_an_already_processed_dispute_in_a_batch_is_reported_and_skipped(shop, world, operator):
    _, first = open_dispute(shop, world, 1)
    _, second = open_dispute(shop, world, 2)
    run_action(operator, "reject", [first], "no")
    done = run_action(operator, "accept", [first, second], "yes")
    html = done.content.decode()
    assert f"Dispute {first.pk}: The dispute has already been processed" in html
    assert "Accepted 1 dispute." in html
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.resolution, second.resolution) == ("rejected", "accepted")


def test_the_decision_pages_are_for_signed_in_operators_only(shop, world, client):
    _, dispute = open_dispute(shop, world)
    response = client.post(f"{QUEUE}resolve/accept/?ids={dispute.pk}", {"comment": "x"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    dispute.refresh_from_db()
    assert not dispute.processed


def test_an_unknown_decision_is_404(shop, world, operator):
    _, dispute = open_dispute(shop, world)
    assert operator.get(f"{QUEUE}resolve/refund/?ids={dispute.pk}").status_code == 404


def test_a_missing_second_confirmation_is_said_on_the_page(shop, world, operator):
    _, dispute = open_dispute(shop, world, amount="800")
    url = f"/admin/disputes/dispute/resolve/accept/?ids={dispute.pk}"
    form = operator.get(url).content.decode()
    assert 'data-testid="confirm-money-note"' in form
    assert "required" not in re.search(r'<input[^>]*name="confirm_money"[^>]*>', form).group(0)
    page = operator.post(url, {"comment": "Bank statement matches"}).content.decode()
    assert 'data-testid="resolve-errors"' in page
    assert "Tick this box to confirm the money that will move." in page
    dispute.refresh_from_db()
    assert not dispute.processed
