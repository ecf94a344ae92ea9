"""CSV streamed as the rows come, with cells a spreadsheet will not run as formulas:
the orders' export and the audit log's."""

import csv
from collections.abc import Callable, Iterable, Iterator

from django.http import StreamingHttpResponse
from django.utils import timezone

# A spreadsheet runs a cell that starts like a formula; merchants write client_order_id.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> str:
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(_FORMULA_START) else text


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_lines(columns: list[tuple[str, Callable]], rows: Iterable) -> Iterator[str]:
    """The header (the columns' names), then one line per row, each cell `getter(row)`."""
    writer = csv.writer(_Echo())
    yield writer.writerow([name for name, _ in columns])
    for row in rows:
        yield writer.writerow([csv_cell(get(row)) for _, get in columns])


def csv_response(lines: Iterator[str], *, name: str) -> StreamingHttpResponse:
    """A download named `<name>-<UTC time>.csv`."""
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}-{stamp}.csv"'
    return response
