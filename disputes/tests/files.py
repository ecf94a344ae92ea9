"""Real evidence files built in memory, and impostors."""

import io

from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

MB5 = 5 * 1024 * 1024


def png(name="shot.png", pad_to: int | None = None) -> SimpleUploadedFile:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buf, "PNG")
    data = buf.getvalue()
    if pad_to:
        data += b"\0" * (pad_to - len(data))
    return SimpleUploadedFile(name, data, content_type="image/png")


def huge_png(name="huge.png", side: int = 20000) -> SimpleUploadedFile:
    """A PNG that says it is `side` x `side` pixels: its header and one empty chunk of
    data, as small as a file can be and as large as the image it announces."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    data += chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    return SimpleUploadedFile(name, data, content_type="image/png")


def jpeg(name="photo.jpg") -> SimpleUploadedFile:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (30, 200, 30)).save(buf, "JPEG")
    return SimpleUploadedFile(name, buf.getvalue(), content_type="image/jpeg")


def pdf(name="receipt.pdf") -> SimpleUploadedFile:
    data = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
    return SimpleUploadedFile(name, data, content_type="application/pdf")


def mp4(name="screen.mp4") -> SimpleUploadedFile:
    ftyp = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    mdat = b"\x00\x00\x00\x10mdat" + b"\x00" * 8
    return SimpleUploadedFile(name, ftyp + mdat, content_type="video/mp4")


def elf_as_png(name="totally-a-picture.png") -> SimpleUploadedFile:
    return SimpleUploadedFile(
        name, b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 120, content_type="image/png"
    )


def exe_as_pdf(name="invoice.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(
        name, b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 120, content_type="application/pdf"
    )


def text_file(name="notes.txt") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, b"just some words", content_type="text/plain")


def svg_script(name="chart.svg") -> SimpleUploadedFile:
    data = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    return SimpleUploadedFile(name, data, content_type="image/svg+xml")


def empty(name="empty.png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, b"", content_type="image/png")


def stored_files(path: str = "") -> set[str]:
    """Every file name in the default storage, walked through the storage API."""
    try:
        dirs, files = default_storage.listdir(path)
    except FileNotFoundError:
        return set()
    out = {f"{path}/{name}" if path else name for name in files}
    for d in dirs:
        out |= stored_files(f"{path}/{d}" if path else d)
    return out
