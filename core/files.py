"""Uploaded files judged by their bytes: shared by disputes' evidence and payers'
receipts. The type comes from the content (filetype), never from the client's
content type or file name."""

import warnings

import filetype
from django.core.files.storage import default_storage
from django.http import FileResponse
from PIL import Image

# filetype looks at most at the first 8 KiB; reading only that keeps a large upload
# (spooled to a temporary file by Django) out of memory.
SNIFF_BYTES = 8192
# Clients that do not know a file's type say so with these; they claim nothing.
NO_CLAIM = ("", "application/octet-stream", "binary/octet-stream")


def file_sniff(upload) -> filetype.Type | None:
    """The file's type from its first bytes, or None when nothing is recognised."""
    upload.seek(0)
    head = upload.read(SNIFF_BYTES)
    upload.seek(0)
    return filetype.guess(head) if head else None


# An image larger than this (in pixels) is refused: a few hundred kilobytes of PNG can
# unpack to gigabytes in the browser of the operator who opens it. A 50-megapixel
# photo (8660 x 5774) is far above what a phone's screenshot or a receipt needs.
MAX_IMAGE_PIXELS = 50_000_000


def image_pixels(upload) -> int | None:
    """Width x height of an image, read from its header alone (nothing is decoded);
    None when Pillow cannot read the header (a type it does not know)."""
    upload.seek(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(upload) as image:
                width, height = image.size
    except Image.DecompressionBombError:
        return MAX_IMAGE_PIXELS + 1  # past Pillow's own limit: larger than ours
    except Exception:
        return None
    finally:
        upload.seek(0)
    return width * height


def image_too_large(upload, kind: filetype.Type) -> bool:
    if not kind.mime.startswith("image/"):
        return False
    pixels = image_pixels(upload)
    return pixels is not None and pixels > MAX_IMAGE_PIXELS


def mime_allowed(mime: str, *, prefixes: tuple[str, ...], exact: tuple[str, ...]) -> bool:
    return mime.startswith(prefixes) or mime in exact


def _family(mime: str, prefixes: tuple[str, ...]) -> str:
    """image, video or the exact type: a JPEG labelled image/png is still an image,
    a PNG labelled application/pdf is not a PDF."""
    return mime.split("/", 1)[0] if mime.startswith(prefixes) else mime


def claim_contradicts(
    claim: str | None, sniffed: str, *, prefixes: tuple[str, ...], exact: tuple[str, ...]
) -> bool:
    """True when the client claims an allowed type that the bytes contradict."""
    claim = (claim or "").split(";", 1)[0].strip().lower()
    if claim in NO_CLAIM or not mime_allowed(claim, prefixes=prefixes, exact=exact):
        return False
    return _family(claim, prefixes) != _family(sniffed, prefixes)


def private_file_response(name: str, *, content_type: str, inline: bool = False):
    """A privately stored file streamed to someone allowed to see it, as a download
    (or inline for an operator's image preview) that a browser never runs as a page."""
    response = FileResponse(
        default_storage.open(name, "rb"),
        content_type=content_type,
        as_attachment=not inline,
        filename=name.rsplit("/", 1)[-1],
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; img-src 'self'; sandbox"
    response["Cache-Control"] = "private, no-store"
    return response
