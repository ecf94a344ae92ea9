"""POST /api/v1/disputes/create (docs/disputes.md)."""

import io
import threading
from collections import Counter
from decimal import Decimal

import httpx
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.db import connections, transaction
from django.http.multipartparser import MultiPartParser
from django.test.client import BOUNDARY, RequestFactory, encode_multipart

from conftest import buy_body, sell_body
from core.uploads import UploadSizeLimit
from disputes.models import Dispute, DisputeFile
from disputes.services import dispute_resolve

from . import files as f
from .conftest import dispute_world

URL = "/api/v1/disputes/create"


def create(client, order_id, amount="1000", evidence=None, headers=None, url=URL):
    data = {"order_id": order_id, "amount": amount}
    if evidence is not None:
        data["files"] = evidence
    return client.post_multipart(url, data, headers=headers)


def assert_nothing_stored():
    assert Dispute.objects.count() == 0
    assert DisputeFile.objects.count() == 0
    assert f.stored_files() == set()


def assert_error(response, status, code=None):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["success"] is False and body["message"]
    if code:
        assert body["code"] == code


# --- accepted --------------------------------------------------------------------------


def test_dispute_with_real_png_jpeg_pdf_and_mp4_is_201(shop, order):
    evidence = [f.png(), f.jpeg(), f.pdf(), f.mp4()]
    sent = [e.read() for e in evidence]
    for e in evidence:
        e.seek(0)
    response = create(shop, order["id"], "950.50", evidence)
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {"order_id", "dispute_id", "dispute_files"}
    assert body["order_id"] == order["id"]
    assert isinstance(body["dispute_id"], str) and body["dispute_id"].isdigit()
    assert len(body["dispute_files"]) == 4
    for name, content in zip(body["dispute_files"], sent, strict=True):
        with default_storage.open(name, "rb") as stored:
            assert stored.read() == content
    assert [n.rsplit(".", 1)[1] for n in body["dispute_files"]] == ["png", "jpg", "pdf", "mp4"]
    rows = list(DisputeFile.objects.order_by("pk"))
    assert [r.content_type for r in rows] == [
        "image/png",
        "image/jpeg",
        "application/pdf",
        "video/mp4",
    ]
    assert [r.original_name for r in rows] == ["shot.png", "photo.jpg", "receipt.pdf", "screen.mp4"]
    assert [r.size for r in rows] == [len(c) for c in sent]
    dispute = Dispute.objects.get()
    assert dispute.amount == Decimal("950.50") and not dispute.processed
    assert dispute.resolution is None


def test_stored_names_are_random_never_the_clients_file_name(shop, order, world):
    evidence = [f.png("../../etc/passwd.png"), f.png("my receipt.png")]
    names = create(shop, order["id"], evidence=evidence).json()["dispute_files"]
    other = shop.post("/api/v1/order/", buy_body(world, amount="1001")).json()
    again = create(shop, other["id"], evidence=[f.png("my receipt.png")]).json()["dispute_files"]
    for name in names + again:
        assert name.startswith("disputes/") and ".." not in name
        assert "passwd" not in name and "receipt" not in name
    assert len(set(names + again)) == 3
    assert f.stored_files() == set(names + again)


def test_the_type_comes_from_the_content_not_the_claim_or_the_name(shop, order):
    real_png = f.png("evidence.bin")
    real_png.content_type = "application/octet-stream"
    response = create(shop, order["id"], evidence=[real_png])
    assert response.status_code == 201
    assert DisputeFile.objects.get().content_type == "image/png"
    assert response.json()["dispute_files"][0].endswith(".png")


@pytest.mark.parametrize(
    ("make", "claim"),
    [(f.png, "application/pdf"), (f.png, "video/mp4"), (f.pdf, "image/png"), (f.mp4, "image/jpeg")],
)
def test_allowed_content_contradicting_its_allowed_claim_is_415(shop, order, make, claim):
    upload = make()
    upload.content_type = claim
    response = create(shop, order["id"], evidence=[f.jpeg(), upload])
    assert_error(response, 415, "unsupported_file_type")
    assert_nothing_stored()


def test_an_image_labelled_as_another_image_type_is_accepted(shop, order):
    upload = f.jpeg("photo.png")
    upload.content_type = "image/png"
    assert create(shop, order["id"], evidence=[upload]).status_code == 201


def test_dispute_without_files_is_201(shop, order):
    response = create(shop, order["id"])
    assert response.status_code == 201
    assert response.json()["dispute_files"] == []


@pytest.mark.parametrize("amount", ["300000.01", "999999999999.99"])
def test_a_claim_above_the_methods_maximum_is_refused(shop, order, amount):
    # Sberbank SBP takes Buy orders up to 300000.
    response = create(shop, order["id"], amount=amount)
    assert_error(response, 400, "dispute_amount_too_large")
    assert "300000.00" in response.json()["message"]
    assert_nothing_stored()


def test_route_also_answers_with_a_trailing_slash(shop, order):
    assert create(shop, order["id"], url=URL + "/").status_code == 201


@pytest.mark.parametrize("amount", ["0.01", "10", "10.5", "300000.00", " 12.30 "])
def test_good_amounts_are_accepted(shop, order, amount):
    assert create(shop, order["id"], amount=amount).status_code == 201
    assert Dispute.objects.get().amount == Decimal(amount.strip())


def test_sell_and_finished_orders_can_be_disputed(shop, world):
    sell = shop.post("/api/v1/order/", sell_body(world)).json()
    assert create(shop, sell["id"]).status_code == 201
    buy = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    shop.post(f"/api/v1/order/{buy['id']}/cancel")
    assert create(shop, buy["id"]).status_code == 201


def test_five_files_are_allowed(shop, order):
    response = create(shop, order["id"], evidence=[f.png(f"{i}.png") for i in range(5)])
    assert response.status_code == 201
    assert len(f.stored_files()) == 5


def test_exactly_5_mb_is_accepted_and_stored_whole(shop, order):
    big = f.png(pad_to=f.MB5)
    response = create(shop, order["id"], evidence=[big])
    assert response.status_code == 201
    name = response.json()["dispute_files"][0]
    assert default_storage.size(name) == f.MB5 == DisputeFile.objects.get().size


# --- refused, and nothing stored -------------------------------------------------------


def test_one_byte_over_5_mb_is_413_and_stores_nothing(shop, order):
    response = create(shop, order["id"], evidence=[f.png(), f.png(pad_to=f.MB5 + 1)])
    assert_error(response, 413, "file_too_large")
    assert_nothing_stored()
    assert create(shop, order["id"]).status_code == 201  # the one dispute is not used up


def test_an_image_of_too_many_pixels_is_413_and_stores_nothing(shop, order):
    """Measured before: a PNG of 20000 x 20000 accepted and shown inline to operators."""
    response = create(shop, order["id"], evidence=[f.png(), f.huge_png()])
    assert_error(response, 413, "file_too_large")
    assert "pixels" in response.json()["message"]
    assert_nothing_stored()
    assert create(shop, order["id"], evidence=[f.huge_png(side=7000)]).status_code == 201


def test_more_than_five_files_is_400_and_stores_nothing(shop, order):
    response = create(shop, order["id"], evidence=[f.png(f"{i}.png") for i in range(6)])
    assert_error(response, 400, "too_many_files")
    assert_nothing_stored()
    assert create(shop, order["id"]).status_code == 201


@pytest.mark.parametrize(
    "impostor", [f.elf_as_png, f.exe_as_pdf, f.text_file, f.svg_script, f.empty]
)
def test_content_that_is_not_an_image_pdf_or_video_is_415(shop, order, impostor):
    response = create(shop, order["id"], evidence=[f.png(), impostor()])
    assert_error(response, 415, "unsupported_file_type")
    assert_nothing_stored()
    # the order's one dispute is not used up
    assert create(shop, order["id"], evidence=[f.png()]).status_code == 201


def test_renamed_executable_claiming_image_png_is_415(shop, order):
    exe = f.elf_as_png("holiday.png")
    assert exe.content_type == "image/png"
    assert_error(create(shop, order["id"], evidence=[exe]), 415)
    assert_nothing_stored()


def test_second_dispute_on_an_order_is_400(shop, order):
    first = create(shop, order["id"], evidence=[f.png()])
    assert first.status_code == 201
    response = create(shop, order["id"], evidence=[f.png()])
    assert_error(response, 400, "dispute_exists")
    assert "already exists" in response.json()["message"]
    assert Dispute.objects.count() == 1
    assert f.stored_files() == set(first.json()["dispute_files"])


def test_dispute_on_an_order_whose_dispute_was_processed_is_400(shop, order):
    create(shop, order["id"])
    dispute_resolve(dispute=Dispute.objects.get(), accept=False, comment="no", actor="op")
    response = create(shop, order["id"])
    assert_error(response, 400, "dispute_exists")
    assert "processed" in response.json()["message"]
    assert Dispute.objects.count() == 1


def test_another_terminals_order_is_403_and_stores_nothing(closed_shop, order):
    response = create(closed_shop, order["id"], evidence=[f.png()])
    assert_error(response, 403, "order_of_another_terminal")
    assert_nothing_stored()


@pytest.mark.parametrize(
    "order_id", ["00000000-0000-0000-0000-000000000000", "nope", "42", "x" * 300]
)
def test_unknown_or_malformed_order_is_404(shop, world, order_id):
    assert_error(create(shop, order_id, evidence=[f.png()]), 404, "order_not_found")
    assert_nothing_stored()


@pytest.mark.parametrize(
    "amount", ["0", "0.00", "-1", "1.001", "abc", "NaN", "Infinity", "-Infinity", ""]
)
def test_bad_amount_is_400(shop, order, amount):
    response = create(shop, order["id"], amount=amount, evidence=[f.png()])
    assert_error(response, 400, "validation_error")
    assert "amount" in response.json()["errors"]
    assert_nothing_stored()


def test_missing_fields_are_400(shop, order):
    no_order = shop.post_multipart(URL, {"amount": "10"})
    assert_error(no_order, 400, "validation_error")
    no_amount = shop.post_multipart(URL, {"order_id": order["id"]})
    assert_error(no_amount, 400, "validation_error")
    # said as missing, not as null
    assert no_order.json()["errors"]["order_id"] == ["This field is required."]
    assert no_amount.json()["errors"]["amount"] == ["This field is required."]
    assert_nothing_stored()


def test_a_json_body_is_415(shop, order):
    assert shop.post(URL, {"order_id": order["id"], "amount": 10}).status_code == 415


def test_without_a_key_is_401(anonymous, order):
    assert_error(create(anonymous, order["id"], evidence=[f.png()]), 401)
    assert_nothing_stored()


# --- Idempotency-Key (docs/responses.md#headers) ---------------------------------------------------


def test_a_repeat_with_the_same_key_replays_and_stores_once(shop, order):
    first = create(shop, order["id"], evidence=[f.png()], headers={"Idempotency-Key": "d-1"})
    second = create(shop, order["id"], evidence=[f.png()], headers={"Idempotency-Key": "d-1"})
    assert first.status_code == second.status_code == 201
    assert first.content == second.content and second["Idempotent-Replayed"] == "true"
    assert DisputeFile.objects.count() == 1 and len(f.stored_files()) == 1


def test_the_same_key_with_other_evidence_is_422(shop, order):
    create(shop, order["id"], evidence=[f.png()], headers={"Idempotency-Key": "d-2"})
    response = create(shop, order["id"], evidence=[f.jpeg()], headers={"Idempotency-Key": "d-2"})
    assert_error(response, 422, "idempotency_key_reused")


def test_a_refusal_is_replayed_too(shop, order):
    headers = {"Idempotency-Key": "d-3"}
    first = create(shop, order["id"], evidence=[f.elf_as_png()], headers=headers)
    second = create(shop, order["id"], evidence=[f.elf_as_png()], headers=headers)
    assert first.status_code == second.status_code == 415
    assert second["Idempotent-Replayed"] == "true"
    assert_nothing_stored()


# --- privacy ---------------------------------------------------------------------------


def test_evidence_is_not_publicly_reachable(shop, order, client):
    name = create(shop, order["id"], evidence=[f.png()]).json()["dispute_files"][0]
    for url in (f"/{name}", f"/media/{name}", f"/static/{name}", f"/private-media/{name}"):
        assert client.get(url).status_code == 404


# --- concurrency -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_creates_on_one_order_make_exactly_one_dispute(live_server):
    world = dispute_world()
    shop = world.api
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    evidence = f.png().read()
    gate = threading.Barrier(2)

    def open_dispute():
        try:
            gate.wait(10)
            return httpx.post(
                live_server.url + URL,
                data={"order_id": order["id"], "amount": "1000"},
                files=[("files", ("a.png", evidence, "image/png"))],
                headers={"X-API-Key": shop.key},
                timeout=60,
            ).status_code
        finally:
            connections.close_all()

    results = []
    threads = [threading.Thread(target=lambda: results.append(open_dispute())) for _ in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert Counter(results) == {201: 1, 400: 1}
    assert Dispute.objects.filter(order_id=order["id"]).count() == 1
    assert f.stored_files() == set(DisputeFile.objects.values_list("file", flat=True))
    assert len(f.stored_files()) == 1


@pytest.mark.django_db(transaction=True)
def test_a_create_that_loses_the_race_on_the_insert_is_400_and_leaves_no_files():
    """The request passed the early "already disputed?" check while another one was
    still inserting: the unique order decides, and the loser removes its files."""
    world = dispute_world()
    shop = world.api
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    inserted, release = threading.Event(), threading.Event()

    def winner():
        try:
            with transaction.atomic():
                Dispute.objects.create(order_id=order["id"], terminal=world.shop, amount=5)
                inserted.set()
                release.wait(20)
        finally:
            connections.close_all()

    thread = threading.Thread(target=winner)
    thread.start()
    assert inserted.wait(20)
    timer = threading.Timer(1.0, release.set)
    timer.start()
    try:
        response = create(shop, order["id"], evidence=[f.png(), f.pdf()])
    finally:
        release.set()
        thread.join(20)
    assert_error(response, 400, "dispute_exists")
    assert Dispute.objects.filter(order_id=order["id"]).count() == 1
    assert DisputeFile.objects.count() == 0 and f.stored_files() == set()


def test_a_much_larger_file_is_413(shop, order):
    huge = f.png(pad_to=12 * 1024 * 1024)
    response = create(shop, order["id"], evidence=[f.pdf(), huge])
    assert_error(response, 413, "file_too_large")
    assert_nothing_stored()


def test_a_much_larger_file_is_spooled_to_disk_only_up_to_the_limit():
    """What the view's upload handlers do with a 12 MB file in a real multipart body."""
    huge = f.png(pad_to=12 * 1024 * 1024)
    body = encode_multipart(BOUNDARY, {"order_id": "x", "amount": "1", "files": [huge]})
    request = RequestFactory().generic(
        "POST", URL, body, content_type=f"multipart/form-data; boundary={BOUNDARY}"
    )
    handlers = [
        UploadSizeLimit(request, limit=f.MB5),
        TemporaryFileUploadHandler(request),
    ]
    parser = MultiPartParser(request.META, io.BytesIO(body), handlers)
    _, uploads = parser.parse()
    [upload] = uploads.getlist("files")
    assert isinstance(upload, TemporaryUploadedFile)  # never held in memory
    assert f.MB5 < upload.size <= f.MB5 + TemporaryFileUploadHandler.chunk_size
    upload.close()
