"""A pytest plugin (loaded by the root conftest) that reads every log line each test
produces, exactly as the service writes it (settings.LOGGING's JSON formatter and
filters), and fails the test if one carries an API key or bearer token that a
request of that test sent, a webhook secret, or a full card or account number. The
audit log's entries written during the test are read and judged the same way.

It runs around every test of the suite, so every request the suite makes is checked,
not only the ones a logging test thinks of.
"""

import json
import logging
import re

import pytest
from django.core.signals import request_started
from django.db.models.signals import post_save

# Whatever is masked reads "[redacted]"; these must never appear unmasked.
WEBHOOK_SECRET = re.compile(r"whsec_(?!\[redacted\])[A-Za-z0-9+/=]{8,}")
# 16-19 digits in a row, or four groups of four: a card (or a long account) number.
CARD_NUMBER = re.compile(r"(?<![\w.-])\d{16,19}(?![\w-])|\b\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{4}\b")


class _Lines(logging.Handler):
    def __init__(self, like: logging.Handler):
        super().__init__(level=logging.DEBUG)
        self.setFormatter(like.formatter)
        for f in like.filters:
            self.addFilter(f)
        self.lines: list[str] = []

    def emit(self, record):
        try:
            self.lines.append(self.format(record))
        except Exception:  # a line that cannot be formatted is not a leak
            pass


def _service_handler() -> logging.Handler | None:
    for handler in logging.getLogger().handlers:
        if handler.formatter is not None and type(handler.formatter).__name__ == "JsonFormatter":
            return handler
    return None


def leaks(lines: list[str], credentials: set[str]) -> list[str]:
    found = []
    for line in lines:
        if any(value in line for value in credentials):
            found.append(f"credential in: {line[:300]}")
        elif WEBHOOK_SECRET.search(line):
            found.append(f"webhook secret in: {line[:300]}")
        elif CARD_NUMBER.search(line):
            found.append(f"card number in: {line[:300]}")
    return found


@pytest.fixture(autouse=True)
def _no_secret_in_log_lines():
    like = _service_handler()
    if like is None:  # logging not configured (no Django test): nothing to check
        yield
        return
    capture = _Lines(like)
    root = logging.getLogger()
    root.addHandler(capture)
    credentials: set[str] = set()

    def remember(sender, environ=None, **kwargs):
        environ = environ or {}
        key = environ.get("HTTP_X_API_KEY", "").strip()
        if len(key) >= 8:
            credentials.add(key)
        scheme, _, token = environ.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme.lower() == "bearer" and len(token.strip()) >= 8:
            credentials.add(token.strip())

    entries: list[str] = []

    def remember_entry(sender, instance, **kwargs):
        fields = {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}
        entries.append("audit entry " + json.dumps(fields, default=str, ensure_ascii=False))

    request_started.connect(remember, weak=False, dispatch_uid="log-guard")
    post_save.connect(
        remember_entry, sender="audit.AuditEntry", weak=False, dispatch_uid="log-guard-audit"
    )
    try:
        yield
    finally:
        request_started.disconnect(dispatch_uid="log-guard")
        post_save.disconnect(sender="audit.AuditEntry", dispatch_uid="log-guard-audit")
        root.removeHandler(capture)
    found = leaks(capture.lines + entries, credentials)
    assert not found, "Log lines carry secrets:\n" + "\n".join(found[:5])
