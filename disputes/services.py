"""Disputes (appeals) on orders, with evidence files (docs/disputes.md).

A refused request stores nothing: the evidence is checked before anything is written,
files are written before the (short) transaction that creates the rows, and removed
again when that transaction does not commit. One dispute per order, ever: the
OneToOne on Dispute.order holds that under concurrency."""

import logging
import secrets
from decimal import Decimal

import filetype
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from audit.services import actor_parts, audit_record
from core.error_codes import ErrorCode
from core.errors import Conflict, Forbidden, InvalidRequest, NotFound, ServiceError
from core.files import (
    MAX_IMAGE_PIXELS,
    claim_contradicts,
    file_sniff,
    image_too_large,
    mime_allowed,
)
from core.formats import iso_utc, parse_uuid
from core.money import money_number, quantize_money
from core.uploads import MAX_UPLOAD_BYTES, MAX_UPLOAD_TEXT
from finance.models import FeeRange, Terminal
from orders.models import Order, Receipt
from orders.services import order_complete_by_dispute, order_event_record
from webhooks.models import EventType

from .models import Dispute, DisputeFile, Resolution

logger = logging.getLogger(__name__)

MAX_FILES = 5
MAX_FILE_BYTES = MAX_UPLOAD_BYTES
ALLOWED_PREFIXES = ("image/", "video/")
ALLOWED_EXACT = ("application/pdf",)


def _allowed(mime: str) -> bool:
    return mime_allowed(mime, prefixes=ALLOWED_PREFIXES, exact=ALLOWED_EXACT)


class PayloadTooLarge(ServiceError):
    code = ErrorCode.FILE_TOO_LARGE


class UnsupportedFileType(ServiceError):
    code = ErrorCode.UNSUPPORTED_FILE_TYPE


class EvidenceStorageFull(ServiceError):
    code = ErrorCode.INSUFFICIENT_STORAGE


class DisputeExists(InvalidRequest):
    code = ErrorCode.DISPUTE_EXISTS


def evidence_check(*, files: list) -> list[tuple[object, filetype.Type]]:
    """Count, size and type of the evidence. The type comes from the bytes themselves,
    never from the client's content type or file name; a claimed allowed type that
    the bytes contradict is refused too."""
    if len(files) > MAX_FILES:
        raise InvalidRequest(
            f"Too many files: at most {MAX_FILES} per dispute", code=ErrorCode.TOO_MANY_FILES
        )
    checked = []
    for upload in files:
        if upload.size > MAX_FILE_BYTES:
            raise PayloadTooLarge(f"File {upload.name!r} is larger than {MAX_UPLOAD_TEXT}")
        kind = file_sniff(upload)
        if kind is None or not _allowed(kind.mime):
            raise UnsupportedFileType(
                f"File {upload.name!r} is not an image, a PDF or a video (judged from its content)"
            )
        if claim_contradicts(
            upload.content_type, kind.mime, prefixes=ALLOWED_PREFIXES, exact=ALLOWED_EXACT
        ):
            raise UnsupportedFileType(
                f"File {upload.name!r} is sent as {upload.content_type} but its content is {kind.mime}"
            )
        if image_too_large(upload, kind):
            raise PayloadTooLarge(
                f"File {upload.name!r} is an image of more than {MAX_IMAGE_PIXELS:,} pixels"
            )
        checked.append((upload, kind))
    return checked


def render_dispute(dispute: Dispute) -> dict:
    """The dispute list item of the API, also the `dispute` of webhook events."""
    order = dispute.order
    return {
        "dispute_id": str(dispute.pk),
        "order_id": str(dispute.order_id),
        "client_order_id": order.client_order_id,
        "amount": money_number(order.amount),
        "currency": order.currency,
        "processed": dispute.processed,
        "resolution": dispute.resolution,
        "created_at": iso_utc(dispute.created_at),
    }


def _order_for(*, terminal: Terminal, order_id) -> Order:
    order_uuid = parse_uuid(order_id)
    order = Order.objects.filter(pk=order_uuid).first() if order_uuid else None
    if order is None:
        raise NotFound(code=ErrorCode.ORDER_NOT_FOUND)
    if order.terminal_id != terminal.pk:
        raise Forbidden(code=ErrorCode.ORDER_OF_ANOTHER_TERMINAL)
    return order


def _exists_error(order: Order) -> DisputeExists:
    if Dispute.objects.filter(order=order, processed=True).exists():
        return DisputeExists("A dispute for this order has already been processed")
    return DisputeExists("A dispute for this order already exists")


def _store(checked) -> list[tuple[str, object, filetype.Type]]:
    """Write the evidence under random names; the client's name is never a path."""
    stored = []
    wanted = ""
    try:
        for upload, kind in checked:
            month = timezone.now().strftime("%Y/%m")
            wanted = f"disputes/{month}/{secrets.token_hex(16)}.{kind.extension}"
            name = default_storage.save(wanted, upload)
            stored.append((name, upload, kind))
    except OSError as exc:  # the disk (or volume) holding local evidence is full or failing
        # A file cut short by a full disk keeps the name it was given (a random one
        # cannot collide): remove it with the whole ones.
        _remove([name for name, _, _ in stored] + [wanted])
        logger.error("Evidence not stored: %s", exc)
        raise EvidenceStorageFull() from exc
    except BaseException:
        _remove([name for name, _, _ in stored])
        raise
    return stored


def _remove(names: list[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except Exception:  # best effort: an orphan file is harmless, a lost error is not
            logger.warning("Could not remove stored evidence %s", name)


def claim_ceiling(order: Order) -> Decimal | None:
    """The most a dispute on `order` may claim: the top of its method's ranges for
    its side."""
    return (
        FeeRange.objects.usable()
        .filter(method_id=order.method_id, side=order.side)
        .aggregate(top=Max("max_amount"))["top"]
    )


def dispute_open(*, terminal: Terminal, order_id, amount: Decimal, files: list) -> Dispute:
    """Open the order's one dispute with its evidence, and record `dispute.created`."""
    order = _order_for(terminal=terminal, order_id=order_id)
    if Dispute.objects.filter(order=order).exists():
        raise _exists_error(order)
    ceiling = claim_ceiling(order)
    if ceiling is not None and amount > ceiling:
        raise InvalidRequest(
            f"Invalid amount: a dispute on this order claims at most {ceiling:.2f}",
            code=ErrorCode.DISPUTE_AMOUNT_TOO_LARGE,
            errors={"amount": [f"At most {ceiling:.2f}, the method's maximum for {order.side}"]},
        )
    checked = evidence_check(files=files)
    # Storage is I/O (possibly a remote bucket): done before the transaction, undone
    # when the rows do not commit.
    stored = _store(checked)
    try:
        with transaction.atomic():
            dispute = Dispute.objects.create(
                order=order, terminal=terminal, amount=quantize_money(amount)
            )
            DisputeFile.objects.bulk_create(
                DisputeFile(
                    dispute=dispute,
                    file=name,
                    content_type=kind.mime,
                    size=upload.size,
                    original_name=(upload.name or "")[:255],
                )
                for name, upload, kind in stored
            )
            dispute.order = order
            order_event_record(
                order_id=order.pk,
                event_type=EventType.DISPUTE_CREATED,
                extra={"dispute": render_dispute(dispute)},
                actor=f"merchant:{terminal.pk}",
            )
    except IntegrityError:
        _remove([name for name, _, _ in stored])
        raise _exists_error(order) from None  # a concurrent request opened it first
    except BaseException:
        _remove([name for name, _, _ in stored])
        raise
    return dispute


def dispute_resolve(*, dispute: Dispute, accept: bool, comment: str, actor: str) -> Dispute:
    """An operator's decision. Accepting a dispute on a Buy order that is not Completed
    completes the order with the disputed amount (and credits the merchant that amount
    less the fee on it); on any other order acceptance records the decision only."""
    with transaction.atomic():
        locked = Dispute.objects.select_for_update().get(pk=dispute.pk)
        if locked.processed:
            raise Conflict(code=ErrorCode.DISPUTE_PROCESSED)
        if accept:
            order_complete_by_dispute(
                order_id=locked.order_id, paid_amount=locked.amount, actor=actor
            )
        locked.processed = True
        locked.resolution = Resolution.ACCEPTED if accept else Resolution.REJECTED
        locked.comment = comment
        locked.resolved_by = actor
        locked.resolved_at = timezone.now()
        locked.save(
            update_fields=["processed", "resolution", "comment", "resolved_by", "resolved_at"]
        )
        locked.order = Order.objects.get(pk=locked.order_id)
        order_event_record(
            order_id=locked.order_id,
            event_type=EventType.DISPUTE_PROCESSED,
            extra={"dispute": render_dispute(locked)},
            actor=actor,
        )
        kind, actor_id = actor_parts(actor)
        audit_record(
            actor_kind=kind,
            actor_id=actor_id,
            action="dispute.accept" if accept else "dispute.reject",
            obj=locked,
            changes={"resolution": locked.resolution, "comment": comment},
        )
    return locked


def dispute_receipts(*, dispute: Dispute) -> list[Receipt]:
    """The payer's receipts on the disputed order: evidence beside the merchant's
    files (they do not count toward MAX_FILES)."""
    return list(Receipt.objects.filter(order_id=dispute.order_id))


def dispute_receipt(*, receipt_id: int) -> Receipt | None:
    """One receipt, only when its order has a dispute."""
    return (
        Receipt.objects.select_related("order__dispute")
        .filter(pk=receipt_id, order__dispute__isnull=False)
        .first()
    )
