"""The "continue on the phone" QR code, drawn on the server as inline SVG (no outside
request, nothing the page's CSP has to allow)."""

import segno
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def qr_svg(url: str, *, label: str) -> SafeString:
    """An SVG QR code of `url` with its 4-module quiet zone painted white, so the
    element alone scans."""
    code = segno.make(url, error="m", micro=False)
    svg = code.svg_inline(scale=5, border=4, dark="#000", light="#fff", svgclass="qr")
    attrs = f'<svg data-testid="continue-on-phone-qr" role="img" aria-label="{escape(label)}" '
    return mark_safe(svg.replace("<svg ", attrs, 1))  # segno's own markup, label escaped
