"""Payers' receipts for an order (docs/form.md#receipts): up to 3 files per order, images or
PDF judged by their bytes, 5 MB each. A refused file stores nothing: it is checked
first, written before the short transaction that adds the row, and removed again
when that transaction does not commit."""

import logging
import secrets

import filetype
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.error_codes import ErrorCode
from core.errors import InvalidRequest
from core.files import (
    MAX_IMAGE_PIXELS,
    claim_contradicts,
    file_sniff,
    image_too_large,
    mime_allowed,
    private_file_response,
)
from core.formats import iso_utc
from core.uploads import MAX_UPLOAD_BYTES

from .models import Order, Receipt

logger = logging.getLogger(__name__)

MAX_RECEIPTS = 3
MAX_RECEIPT_BYTES = MAX_UPLOAD_BYTES
ALLOWED_PREFIXES = ("image/",)
ALLOWED_EXACT = ("application/pdf",)


class ReceiptRefused(InvalidRequest):
    """Why a receipt was not taken; `reason` (the code without its prefix) is the key
    of the payer's message."""

    code = ErrorCode.RECEIPT_TYPE

    def __init__(self, message: str | None = None, *, code: ErrorCode):
        super().__init__(message, code=code)
        self.reason = self.code.removeprefix("receipt_")


def receipt_check(*, upload) -> filetype.Type:
    if upload is None or not upload.size:
        raise ReceiptRefused(code=ErrorCode.RECEIPT_EMPTY)
    if upload.size > MAX_RECEIPT_BYTES:
        raise ReceiptRefused(code=ErrorCode.RECEIPT_TOO_LARGE)
    kind = file_sniff(upload)
    if kind is None or not mime_allowed(kind.mime, prefixes=ALLOWED_PREFIXES, exact=ALLOWED_EXACT):
        raise ReceiptRefused(code=ErrorCode.RECEIPT_TYPE)
    if claim_contradicts(
        upload.content_type, kind.mime, prefixes=ALLOWED_PREFIXES, exact=ALLOWED_EXACT
    ):
        raise ReceiptRefused(
            f"File is sent as {upload.content_type} but its content is {kind.mime}",
            code=ErrorCode.RECEIPT_TYPE,
        )
    if image_too_large(upload, kind):
        raise ReceiptRefused(
            f"File is an image of more than {MAX_IMAGE_PIXELS:,} pixels",
            code=ErrorCode.RECEIPT_TOO_LARGE,
        )
    return kind


def _remove(name: str) -> None:
    try:
        default_storage.delete(name)
    except Exception:  # best effort: an orphan file is harmless, a lost error is not
        logger.warning("Could not remove stored receipt %s", name)


def receipt_attach(*, order_id, upload) -> Receipt:
    """Attach one receipt to a Pending order; the order's receipts_count follows."""
    kind = receipt_check(upload=upload)
    if Order.objects.taking_receipts().filter(pk=order_id).count() == 0:
        raise ReceiptRefused(code=ErrorCode.RECEIPT_CLOSED)
    if Receipt.objects.filter(order_id=order_id).count() >= MAX_RECEIPTS:
        raise ReceiptRefused(code=ErrorCode.RECEIPT_TOO_MANY)
    month = timezone.now().strftime("%Y/%m")
    name = default_storage.save(
        f"receipts/{month}/{secrets.token_hex(16)}.{kind.extension}", upload
    )
    try:
        with transaction.atomic():
            order = Order.objects.select_for_update().with_db_clock().get(pk=order_id)
            if not order.takes_receipts:
                raise ReceiptRefused(code=ErrorCode.RECEIPT_CLOSED)
            if order.receipts_count >= MAX_RECEIPTS:
                raise ReceiptRefused(code=ErrorCode.RECEIPT_TOO_MANY)
            receipt = Receipt.objects.create(
                order=order,
                file=name,
                content_type=kind.mime,
                size=upload.size,
                original_name=(upload.name or "")[:255],
            )
            Order.objects.filter(pk=order.pk).update(receipts_count=F("receipts_count") + 1)
    except BaseException:
        _remove(name)
        raise
    return receipt


def render_receipt(receipt: Receipt) -> dict:
    return {
        "id": str(receipt.pk),
        "content_type": receipt.content_type,
        "size": receipt.size,
        "uploaded_at": iso_utc(receipt.uploaded_at),
    }


def receipt_response(receipt: Receipt, *, inline: bool = False):
    return private_file_response(
        receipt.file.name, content_type=receipt.content_type, inline=inline
    )
