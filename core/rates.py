"""The one parser for rate strings ("1200/min", "60/min", "5/15min"...): API_RATE_LIMIT,
AUTH_FAILURE_RATE_LIMIT and the admin sign-in all read theirs through it, and settings
check each at start-up so a typo fails there instead of on every request."""

import re
from dataclasses import dataclass

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"\s*([0-9]+)\s*(?:/\s*([0-9]*)\s*([a-zA-Z]*)\s*)?")


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int


def parse_rate(rate: str, *, name: str = "rate") -> Rate:
    """'1200/min', '20/s', '100/hour', '5000/day', '5/15min' (a unit word counts by its
    first letter); a bare number is per minute. ValueError names `name` otherwise."""
    match = _RATE.fullmatch(rate or "")
    unit = (match.group(3) or "m")[:1].lower() if match else ""
    if not match or unit not in _UNITS or (match.group(2) and int(match.group(2)) == 0):
        raise ValueError(f"{name} must look like 1200/min, not {rate!r}")
    return Rate(count=int(match.group(1)), seconds=int(match.group(2) or 1) * _UNITS[unit])
