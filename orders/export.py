"""Orders as CSV, streamed: rows are written as the database hands them over, so an
export of a million orders never sits in memory at once.

Made for a Russian spreadsheet: UTF-8 with a byte order mark (or Excel reads it as
cp1251), `;` between fields (`,` is the decimal separator there), amounts with a
decimal comma, and times in the operators' zone as `DD.MM.YYYY HH:MM:SS`, which such a
spreadsheet reads as a date; the zone is named in the file's name."""

import csv
from collections.abc import Iterable, Iterator
from datetime import datetime, tzinfo
from decimal import Decimal

from django.http import StreamingHttpResponse
from django.utils import timezone

BOM = "\ufeff"
DELIMITER = ";"


def _time(value: datetime | None, zone: tzinfo) -> str:
    return "" if value is None else value.astimezone(zone).strftime("%d.%m.%Y %H:%M:%S")


def _number(value: Decimal | None) -> str:
    return "" if value is None else str(value).replace(".", ",")


COLUMNS = [
    ("id", lambda o, z: o.pk),
    ("created_at", lambda o, z: _time(o.created_at, z)),
    ("terminal", lambda o, z: o.terminal.name),
    ("terminal_id", lambda o, z: o.terminal_id),
    ("client_order_id", lambda o, z: o.client_order_id),
    ("side", lambda o, z: o.side),
    ("status", lambda o, z: o.status),
    ("method", lambda o, z: o.method.name),
    ("requested_amount", lambda o, z: _number(o.requested_amount)),
    ("amount", lambda o, z: _number(o.amount)),
    ("fee_amount", lambda o, z: _number(o.fee_amount)),
    ("paid_amount", lambda o, z: _number(o.paid_amount)),
    ("currency", lambda o, z: o.currency),
    ("trader", lambda o, z: o.trader.name if o.trader_id else ""),
    ("user_id", lambda o, z: o.user_id),
    ("expires_at", lambda o, z: _time(o.expires_at, z)),
    ("closed_at", lambda o, z: _time(o.closed_at, z)),
    ("closed_by", lambda o, z: o.closed_by),
]
# A spreadsheet runs a cell that starts like a formula; merchants write client_order_id.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(_FORMULA_START) else text


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_rows(orders: Iterable, *, zone: tzinfo) -> Iterator[str]:
    writer = csv.writer(_Echo(), delimiter=DELIMITER)
    yield BOM + writer.writerow([name for name, _ in COLUMNS])
    for order in orders:
        yield writer.writerow([_cell(get(order, zone)) for _, get in COLUMNS])


def orders_csv_response(queryset) -> StreamingHttpResponse:
    # The rows are written after the view returns, when the request's zone is no
    # longer active: the zone is taken now.
    zone = timezone.get_current_timezone()
    orders = queryset.select_related("terminal", "method", "trader").iterator(chunk_size=2000)
    now = timezone.localtime(timezone.now(), zone)
    stamp = f"{now:%Y%m%d-%H%M%S}-{now.tzname()}"
    response = StreamingHttpResponse(
        csv_rows(orders, zone=zone), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="orders-{stamp}.csv"'
    return response
