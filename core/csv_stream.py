"""CSV streamed as the rows come, made for a Russian spreadsheet: the orders' export,
the audit log's and the revenue report's.

UTF-8 with a byte order mark (or Excel reads it as cp1251), `;` between fields (`,` is
the decimal separator there), amounts with a decimal comma, times in the operators'
zone as `DD.MM.YYYY HH:MM:SS` (which such a spreadsheet reads as a date; the zone is
named in a last column, `time_zone`, and in the file's name), and cells a spreadsheet
will not run as formulas."""

import csv
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, tzinfo
from decimal import Decimal

from django.http import StreamingHttpResponse
from django.utils import timezone

BOM = "\ufeff"
DELIMITER = ";"
# A spreadsheet runs a cell that starts like a formula; merchants write client_order_id.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value, zone: tzinfo | None = None) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.astimezone(zone).strftime("%d.%m.%Y %H:%M:%S")
    if isinstance(value, Decimal):
        return str(value).replace(".", ",")
    text = str(value)
    return f"'{text}" if text.startswith(_FORMULA_START) else text


class _Echo:
    def write(self, value: str) -> str:
        return value


ZONE_COLUMN = "time_zone"


def csv_lines(columns: list[tuple[str, Callable]], rows: Iterable) -> Iterator[str]:
    """The header (the columns' names and `time_zone`), then one line per row, each
    cell `getter(row)`, and last the name of the zone its times are in (`MSK`). The
    zone is the one active now: the lines are written after the view returns."""
    zone = timezone.get_current_timezone()
    writer = csv.writer(_Echo(), delimiter=DELIMITER)
    default_name = timezone.now().astimezone(zone).tzname()

    def lines():
        yield BOM + writer.writerow([name for name, _ in columns] + [ZONE_COLUMN])
        for row in rows:
            values = [get(row) for _, get in columns]
            moment = next((v for v in values if isinstance(v, datetime)), None)
            name = moment.astimezone(zone).tzname() if moment is not None else default_name
            yield writer.writerow([csv_cell(v, zone) for v in values] + [name])

    return lines()


def csv_response(lines: Iterator[str], *, name: str) -> StreamingHttpResponse:
    """A download named `<name>-<time in the operators' zone>-<zone>.csv`."""
    now = timezone.localtime(timezone.now())
    stamp = f"{now:%Y%m%d-%H%M%S}-{now.tzname()}"
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}-{stamp}.csv"'
    return response
