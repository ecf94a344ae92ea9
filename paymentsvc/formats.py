import uuid
from datetime import UTC, datetime


def iso_utc(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with fractional seconds and a Z, as the contract shows them."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_uuid(value) -> uuid.UUID | None:
    """A malformed id names nothing: callers answer 404 for it, like an unknown one."""
    try:
        return uuid.UUID(str(value))
    except (ValueError, AttributeError, TypeError):
        return None
