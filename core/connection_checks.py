"""A persistent database connection's health check, only after it has rested.

With CONN_HEALTH_CHECKS Django asks the server `SELECT 1` before the first statement
of every request on a kept connection: one more round trip on every request, a tenth
of a balance read's time in the web process under load. A connection that finished a
request within the last `RESTED_SECONDS` is taken as it is; one that rested longer
(when a restarted or dropped server goes unnoticed) is checked as before. A request
that still meets a dead connection gets the answer any request in flight then gets
(503), and Django drops the connection when that request ends; a Celery task's check
is Django's own, unchanged.

It sets Django's `health_check_done` flag, the one Django's own check sets; the code
it leans on is fingerprinted in core/tests/test_framework_internals.py.
"""

import time

from django.core.signals import request_finished, request_started
from django.db import connections

RESTED_SECONDS = 1.0


def _ended(**kwargs) -> None:
    now = time.monotonic()
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None:
            connection.request_ended_at = now


def _started(**kwargs) -> None:
    now = time.monotonic()
    for connection in connections.all(initialized_only=True):
        ended = getattr(connection, "request_ended_at", None)
        if connection.connection is not None and ended is not None:
            if now - ended < RESTED_SECONDS and not connection.errors_occurred:
                connection.health_check_done = True  # used a moment ago: no SELECT 1


def connect() -> None:
    """After Django's own receivers (close_old_connections resets the flag first)."""
    request_started.connect(_started, dispatch_uid="core.connection_checks.started")
    request_finished.connect(_ended, dispatch_uid="core.connection_checks.ended")
