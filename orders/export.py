"""Orders as CSV, streamed: rows are written as the database hands them over, so an
export of a million orders never sits in memory at once."""

from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse

from core.csv_stream import csv_lines, csv_response

COLUMNS = [
    ("id", lambda o: o.pk),
    ("created_at", lambda o: o.created_at),
    ("terminal", lambda o: o.terminal.name),
    ("terminal_id", lambda o: o.terminal_id),
    ("client_order_id", lambda o: o.client_order_id),
    ("side", lambda o: o.side),
    ("status", lambda o: o.status),
    ("method", lambda o: o.method.name),
    ("requested_amount", lambda o: o.requested_amount),
    ("amount", lambda o: o.amount),
    ("fee_amount", lambda o: o.fee_amount),
    ("paid_amount", lambda o: o.paid_amount),
    ("currency", lambda o: o.currency),
    ("trader", lambda o: o.trader.name if o.trader_id else ""),
    ("user_id", lambda o: o.user_id),
    ("expires_at", lambda o: o.expires_at),
    ("closed_at", lambda o: o.closed_at),
    ("closed_by", lambda o: o.closed_by),
]


def csv_rows(orders: Iterable) -> Iterator[str]:
    return csv_lines(COLUMNS, orders)


def orders_csv_response(queryset) -> StreamingHttpResponse:
    orders = queryset.select_related("terminal", "method", "trader").iterator(chunk_size=2000)
    return csv_response(csv_rows(orders), name="orders")
