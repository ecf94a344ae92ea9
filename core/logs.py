"""JSON log lines that say which request (or task) they belong to, and never carry a
key, a secret or a full account number.

What a line belongs to lives in a context variable: the request middleware sets the
request id and route, authentication adds the terminal (or trader), and a Celery
task started by a request runs under that request's id (it travels as a message
header). `ContextFilter` copies it onto every record; `JsonFormatter` masks what must
never be written, whoever logged it (a database error quoting a row included).
"""

import logging
import re
import secrets
from contextvars import ContextVar

import pythonjsonlogger.json

# Fields every line carries (null when unknown).
CONTEXT_FIELDS = ("request_id", "terminal_id", "trader_id", "route", "task")
REQUEST_ID_HEADER = "request_id"

_context: ContextVar[dict | None] = ContextVar("paymentsvc_log_context", default=None)
_REQUEST_ID = re.compile(r"[\x20-\x7e]{1,128}")


def new_request_id() -> str:
    return secrets.token_hex(16)


def request_id_from(value: str | None) -> str:
    """The client's own id when it is 1-128 printable characters, else a fresh one."""
    if value and _REQUEST_ID.fullmatch(value):
        return value
    return new_request_id()


def context_start(**fields) -> object:
    """Start a fresh context (a request, a task); returns the token for `context_end`."""
    return _context.set({key: value for key, value in fields.items() if value is not None})


def context_end(token) -> None:
    _context.reset(token)


def context_clear() -> None:
    _context.set(None)


def bind(**fields) -> None:
    """Add fields to the current request's or task's context (nothing outside one)."""
    current = _context.get()
    if current is not None:
        current.update({key: value for key, value in fields.items() if value is not None})


def current(field: str):
    current = _context.get()
    return None if current is None else current.get(field)


class ContextFilter(logging.Filter):
    def filter(self, record):
        context = _context.get() or {}
        for field in CONTEXT_FIELDS:
            if getattr(record, field, None) is None:
                setattr(record, field, context.get(field))
        return True


_MASKS = (
    # Standard Webhooks secrets, current or rotated.
    (re.compile(r"whsec_[A-Za-z0-9+/=_-]+"), "whsec_[redacted]"),
    # Keys as generate_key() makes them: a short prefix and 43 url-safe characters.
    (
        re.compile(r"\b([a-z]{2,8})_(?=[\w-]*[A-Z])(?=[\w-]*\d)[A-Za-z0-9_-]{32,}"),
        r"\1_[redacted]",
    ),
    # Headers that carry credentials, if anything ever prints them.
    (
        re.compile(r"(?i)\b(x-api-key|http_x_api_key)([\\'\"]*\s*[:=]\s*[\\'\"]*)[^\\'\",}\s]+"),
        r"\1\2[redacted]",
    ),
    (re.compile(r"(?i)\bbearer\s+[^\s\\'\",}]+"), "Bearer [redacted]"),
    # Credentials in URLs (webhook targets may carry user:password@).
    (re.compile(r"(://)[^/\s:@\"]+:[^/\s@\"]+@"), r"\1[redacted]@"),
    # Card and account numbers (phone numbers too): runs of 11-19 digits, or cards
    # written in groups of four; the last four digits stay, as on any receipt.
    (re.compile(r"(?<![\w.-])\+?\d{7,15}(\d{4})(?![\w-])"), r"[redacted]\1"),
    (re.compile(r"\b\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{0,3}(\d{4})\b"), r"[redacted]\1"),
)


def redact(text: str) -> str:
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


class JsonFormatter(pythonjsonlogger.json.JsonFormatter):
    """One JSON object per line, masked as a whole: the message, any traceback and
    any extra field alike (a database error may quote a whole row)."""

    def format(self, record):
        return redact(super().format(record))


# --- Celery: the request id travels with the tasks a request starts --------------------------


def _publish_with_request_id(headers=None, **kwargs):
    request_id = current("request_id")
    if headers is not None and request_id and REQUEST_ID_HEADER not in headers:
        headers[REQUEST_ID_HEADER] = request_id


def _task_started(task_id=None, task=None, **kwargs):
    request_id = getattr(task.request, REQUEST_ID_HEADER, None) if task else None
    if request_id is None and task is not None:
        request_id = (task.request.headers or {}).get(REQUEST_ID_HEADER)
    task.request._paymentsvc_log_token = context_start(
        request_id=request_id or f"task-{task_id}", task=task.name
    )


def _task_finished(task=None, **kwargs):
    token = getattr(task.request, "_paymentsvc_log_token", None)
    if token is not None:
        context_end(token)


def _keep_django_logging(**kwargs):
    """Celery configures no logging of its own: Django's LOGGING (JSON lines, the same
    filters) applies to the worker and beat too."""


def connect_celery(app) -> None:
    from celery import signals

    signals.before_task_publish.connect(_publish_with_request_id, weak=False)
    signals.task_prerun.connect(_task_started, weak=False)
    signals.task_postrun.connect(_task_finished, weak=False)
    signals.setup_logging.connect(_keep_django_logging, weak=False)
