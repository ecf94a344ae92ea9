import re
import uuid
from datetime import UTC, datetime, timedelta

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


# The http(s) URLs the service takes, as the OpenAPI schema states them: an http or
# https scheme, an optional user part (`user:password@`, RFC 3986's characters: a
# webhook's credentials, sent as basic authentication), a host name (Latin or
# Cyrillic letters, digits, dots, hyphens, underscores: a .рф name as written; other
# scripts in their xn-- form; no IPv6 literal), an optional port up to 65535, then
# anything but NUL, whitespace and other control characters. The same pattern
# decides here and in the schema, so a client that checks its URLs against the schema
# is neither refused what it allows nor allowed what is refused. Written with explicit
# classes only: `\s`, `\w` and `$` read differently in Python and in the ECMA 262
# dialect JSON Schema uses (here the whole value must match: no last newline). Tests
# generate URLs from the pattern and read each with urlsplit, as a delivery does, and
# compare the service with the schema's own validator on any text.
_URL_TEXT = r"[^\x00-\x20\x7f-\x9f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
HTTP_URL_PATTERN = (
    r"^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9._~%!$&'()*+,;=:-]+@)?"
    r"[A-Za-z0-9_\u0400-\u04ff](?:[A-Za-z0-9_.\u0400-\u04ff-]*[A-Za-z0-9_\u0400-\u04ff])?"
    r"(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
    rf"(?:[/?#]{_URL_TEXT}*)?$"
)
_HTTP_URL = re.compile(HTTP_URL_PATTERN)


def http_url_problem(value: str, *, max_length: int) -> str | None:
    """Why `value` is not an http(s) URL of at most `max_length` characters, or None."""
    if len(value) > max_length:
        return f"Must be at most {max_length} characters"
    if not _HTTP_URL.fullmatch(value):
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
