"""A persistent database connection's health check, only after it has rested.

With CONN_HEALTH_CHECKS Django asks the server `SELECT 1` before the first statement
of every request on a kept connection: one more round trip on every request, a tenth
of a balance read's time in the web process under load. A connection that finished a
request within the last `RESTED_SECONDS` is taken as it is; one that rested longer
(when a restarted or dropped server goes unnoticed) is checked as before. A request
that still meets a dead connection gets the answer any request in flight then gets
(503), and Django drops the connection when that request ends. Outside requests (a
Celery task) nothing is recorded, and Django's check is unchanged.

Each connection's `close_if_health_check_failed` (what Django calls before a request's
first statement) is wrapped when the connection is made; the Django code it leans on
is fingerprinted in core/tests/test_framework_internals.py.
"""

import time

from django.core.signals import request_finished
from django.db import connections
from django.db.backends.signals import connection_created

RESTED_SECONDS = 1.0


def _ended(**kwargs) -> None:
    now = time.monotonic()
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None:
            connection.request_ended_at = now


def checked_unless_fresh(connection) -> bool:
    """Skip this request's check (as if done) when the connection ended a request a
    moment ago without an error; returns whether it was skipped."""
    ended = getattr(connection, "request_ended_at", None)
    if (
        connection.connection is None
        or connection.health_check_done
        or connection.errors_occurred
        or ended is None
        or time.monotonic() - ended >= RESTED_SECONDS
    ):
        return False
    connection.health_check_done = True  # used a moment ago: no SELECT 1
    return True


def _wrap(sender, connection, **kwargs) -> None:
    if "close_if_health_check_failed" in connection.__dict__:
        return  # wrapped when its first connection was made
    djangos = connection.close_if_health_check_failed

    def close_if_health_check_failed():
        if not checked_unless_fresh(connection):
            djangos()

    connection.close_if_health_check_failed = close_if_health_check_failed


def connect() -> None:
    connection_created.connect(_wrap, dispatch_uid="core.connection_checks.wrap")
    request_finished.connect(_ended, dispatch_uid="core.connection_checks.ended")
