"""Charts drawn on the server as inline SVG: no script, no third-party assets."""

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from core.admin_pages import operator_count as count
from core.admin_pages import operator_share as share

STATUS_COLOURS = {
    "Completed": "#2e7d32",
    "Pending": "#1565c0",
    "Cancelled": "#9e9e9e",
    "Expired": "#ef6c00",
}
WIDTH, HEIGHT, PAD = 760, 220, 34


# Shown statuses in the operator's language, for legends and captions.
STATUS_NAMES = {
    "Completed": pgettext_lazy("order status", "Completed"),
    "Pending": pgettext_lazy("order status", "Pending"),
    "Cancelled": pgettext_lazy("order status", "Cancelled"),
    "Expired": pgettext_lazy("order status", "Expired"),
}


def status_name(status: str) -> str:
    return str(STATUS_NAMES.get(status, status))


def _svg(testid: str, title: str, body: str, height: int = HEIGHT) -> str:
    return format_html(
        '<svg data-testid="{}" role="img" aria-label="{}" viewBox="0 0 {} {}" width="100%" '
        'xmlns="http://www.w3.org/2000/svg" style="max-width:{}px;font:11px sans-serif">'
        "<title>{}</title>{}</svg>",
        testid,
        title,
        WIDTH,
        height,
        WIDTH,
        title,
        mark_safe(body),  # noqa: S308 - built from format_html pieces below
    )


def orders_per_hour(rows: list[dict], *, since: datetime, now: datetime) -> str:
    """Stacked bars, one per hour of the period, one colour per status."""
    start = timezone.localtime(since).replace(minute=0, second=0, microsecond=0)
    hours = max(1, int((now - start).total_seconds() // 3600) + 1)
    stacks: dict[int, dict[str, int]] = {}
    for row in rows:
        index = int((row["hour"] - start).total_seconds() // 3600)
        if 0 <= index < hours:
            stacks.setdefault(index, {})[row["shown"]] = row["n"]
    top = max([sum(s.values()) for s in stacks.values()] or [1])
    plot_w, plot_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    bar_w = plot_w / hours
    parts = []
    for index, stack in sorted(stacks.items()):
        y = HEIGHT - PAD
        for status, colour in STATUS_COLOURS.items():
            n = stack.get(status, 0)
            if not n:
                continue
            h = plot_h * n / top
            y -= h
            hour = timezone.localtime(start + timedelta(hours=index))
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}">'
                    "<title>{} {}: {}</title></rect>",
                    f"{PAD + index * bar_w:.1f}",
                    f"{y:.1f}",
                    f"{max(bar_w - 1, 0.5):.1f}",
                    f"{h:.1f}",
                    colour,
                    hour.strftime("%Y-%m-%d %H:00 %Z"),
                    status_name(status),
                    n,
                )
            )
    axis = format_html(
        '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#999"/>'
        '<text x="{}" y="{}">{}</text><text x="{}" y="{}" text-anchor="end">{}</text>'
        '<text x="2" y="{}">{}</text>',
        PAD,
        HEIGHT - PAD,
        WIDTH - PAD,
        HEIGHT - PAD,
        PAD,
        HEIGHT - PAD + 14,
        timezone.localtime(start).strftime("%d.%m %H:00 %Z"),
        WIDTH - PAD,
        HEIGHT - PAD + 14,
        timezone.localtime(now).strftime("%d.%m %H:%M %Z"),
        PAD,
        top,
    )
    legend = format_html_join(
        "",
        '<rect x="{}" y="6" width="10" height="10" fill="{}"/><text x="{}" y="15">{}</text>',
        (
            (PAD + i * 100, colour, PAD + i * 100 + 14, status_name(status))
            for i, (status, colour) in enumerate(STATUS_COLOURS.items())
        ),
    )
    return _svg(
        "chart-orders-per-hour", _("Orders per hour by status"), axis + legend + "".join(parts)
    )


def horizontal_bars(testid: str, title: str, rows: list[tuple[str, float | None, str]]) -> str:
    """One labelled bar per row: (label, value 0-100 or None, caption)."""
    row_h = 22
    height = max(1, len(rows)) * row_h + 12
    label_w, bar_max = 200, WIDTH - 200 - 120
    parts = []
    for i, (label, value, caption) in enumerate(rows):
        y = 6 + i * row_h
        width = bar_max * (value or 0) / 100
        parts.append(
            format_html(
                '<text x="0" y="{}">{}</text><rect x="{}" y="{}" width="{}" height="{}" '
                'fill="#eee"/><rect x="{}" y="{}" width="{}" height="{}" fill="#2e7d32"/>'
                '<text x="{}" y="{}">{}</text>',
                y + 13,
                label[:32],
                label_w,
                y,
                bar_max,
                row_h - 6,
                label_w,
                y,
                f"{width:.1f}",
                row_h - 6,
                label_w + bar_max + 6,
                y + 13,
                caption,
            )
        )
    if not rows:
        parts.append(format_html('<text x="0" y="18">{}</text>', _("No orders in this period.")))
    return _svg(testid, title, "".join(parts), height=height)


def _conversion_caption(conversion) -> str:
    return "—" if conversion is None else f"{share(conversion)} %"


def conversion_per_method(rows: list[dict]) -> str:
    bars = [
        (
            r["method__name"],
            None if r["conversion"] is None else float(r["conversion"]),
            _("{conversion} of {ended} ended").format(
                conversion=_conversion_caption(r["conversion"]), ended=count(r["ended"])
            ),
        )
        for r in rows
    ]
    return horizontal_bars("chart-conversion-per-method", _("Conversion per method"), bars)


def trader_load(rows: list[dict]) -> str:
    """Each trader's load: the bar is Pending now, scaled to the busiest trader; the
    period's conversion is only a caption beside it."""
    busiest = max([r["pending"] for r in rows] or [0])
    bars = [
        (
            r["name"],
            r["pending"] * 100 / busiest if busiest else 0,
            _("{pending} pending · conversion {conversion}").format(
                pending=count(r["pending"]), conversion=_conversion_caption(r["conversion"])
            ),
        )
        for r in rows
    ]
    return horizontal_bars("chart-trader-load", _("Trader load: Pending now"), bars)
