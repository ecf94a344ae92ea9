import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

_ZERO = timedelta(0)


def iso_utc(value: datetime | str | None) -> str | None:
    """ISO 8601 in UTC with fractional seconds and a Z, as the contract shows them. Text
    is kept as it is: a time the database has written in this form already (a list's
    rows)."""
    if value is None or isinstance(value, str):
        return value
    if value.utcoffset() != _ZERO:  # the database's values are UTC already
        value = value.astimezone(UTC)
    return value.isoformat(timespec="microseconds")[:-6] + "Z"


def parse_uuid(value) -> uuid.UUID | None:
    """A malformed id names nothing: callers answer 404 for it, like an unknown one."""
    try:
        return uuid.UUID(str(value))
    except (ValueError, AttributeError, TypeError):
        return None


def http_url_problem(value: str, *, max_length: int) -> str | None:
    """Why `value` is not an http(s) URL of at most `max_length` characters, or None."""
    if len(value) > max_length:
        return f"Must be at most {max_length} characters"
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return "Must be a valid http(s) URL"
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or any(c.isspace() for c in value)
    ):
        return "Must be a valid http(s) URL"
    return None


NUL_MESSAGE = "Malformed request: NUL characters are not accepted"


def holds_nul(value) -> bool:
    """Whether a NUL character appears anywhere in `value` (strings, and the keys and
    items of dicts and lists, however deep; walked without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False
