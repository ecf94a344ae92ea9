"""disputes.services.dispute_open and evidence_check, below the HTTP layer."""

from decimal import Decimal

import pytest
from django.core.files.storage import FileSystemStorage
from django.core.files.uploadedfile import TemporaryUploadedFile

from core.files import SNIFF_BYTES
from disputes.models import Dispute, DisputeFile
from disputes.services import EvidenceStorageFull, PayloadTooLarge, dispute_open, evidence_check
from webhooks.models import WebhookEvent

from . import files as f


class FlakyStorage(FileSystemStorage):
    """A store that fails on its second write, like a bucket dropping a connection."""

    saves = 0

    def _save(self, name, content):
        type(self).saves += 1
        if type(self).saves == 2:
            raise OSError("storage went away")
        return super()._save(name, content)


class CountingUpload(TemporaryUploadedFile):
    """A large upload spooled to disk, as Django hands over anything over
    FILE_UPLOAD_MAX_MEMORY_SIZE; counts what is read from it."""

    read_bytes = 0

    def read(self, *args):
        data = super().read(*args)
        self.read_bytes += len(data)
        return data


def test_the_created_event_carries_the_dispute_as_listed_and_the_order(shop, world, order):
    dispute = dispute_open(
        terminal=world.shop, order_id=order["id"], amount=Decimal("12.34"), files=[f.pdf()]
    )
    event = WebhookEvent.objects.get(type="dispute.created")
    listed = shop.get("/api/v1/disputes/search").json()["data"]["items"][0]
    assert event.payload["data"]["dispute"] == listed
    assert listed["dispute_id"] == str(dispute.pk) and listed["amount"] == 1000
    assert event.payload["data"]["order"]["id"] == order["id"]
    assert event.sequence == 2  # after order.created, on the order's own sequence


def test_a_large_upload_is_sniffed_from_its_first_bytes_only(settings):
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE < f.MB5  # so Django spools it to disk
    upload = CountingUpload("big.png", "image/png", f.MB5, None)
    upload.write(f.png(pad_to=f.MB5).read())
    upload.seek(0)
    [(checked, kind)] = evidence_check(files=[upload])
    assert kind.mime == "image/png"
    # Its first bytes for the type, then the image's header for its size in pixels.
    assert upload.read_bytes <= 2 * SNIFF_BYTES
    assert checked.tell() == 0  # handed back rewound, ready to be stored
    upload.close()


def test_the_size_limit_is_judged_without_reading_the_file():
    upload = CountingUpload("big.png", "image/png", f.MB5 + 1, None)
    upload.write(f.png(pad_to=f.MB5 + 1).read())
    upload.seek(0)
    with pytest.raises(PayloadTooLarge):
        evidence_check(files=[upload])
    assert upload.read_bytes == 0
    upload.close()


def test_a_storage_failure_removes_what_was_already_written(world, order, settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": f"{__name__}.FlakyStorage",
            "OPTIONS": {"location": str(tmp_path / "flaky"), "base_url": None},
        },
    }
    FlakyStorage.saves = 0
    with pytest.raises(EvidenceStorageFull):  # a 507, from the OSError
        dispute_open(
            terminal=world.shop,
            order_id=order["id"],
            amount=Decimal("10"),
            files=[f.png(), f.pdf()],
        )
    assert f.stored_files() == set()
    assert not Dispute.objects.exists() and not DisputeFile.objects.exists()
    assert not WebhookEvent.objects.filter(type="dispute.created").exists()
