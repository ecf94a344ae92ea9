"""Field types the order, form and dispute endpoints share."""

import re
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .formats import http_url_problem


def validate_http_url(value: str, *, max_length: int) -> str:
    problem = http_url_problem(value, max_length=max_length)
    if problem:
        raise serializers.ValidationError(problem)
    return value


@extend_schema_field({"type": "string", "format": "uri", "nullable": True})
class HttpUrlField(serializers.CharField):
    def __init__(self, *, url_max_length: int = 2048, **kwargs):
        self.url_max_length = url_max_length
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        return validate_http_url(value, max_length=self.url_max_length)


NUMERIC_STRING = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", re.ASCII)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": r"^[0-9]{1,18}(\.[0-9]{1,2})?$", "example": "1000.00"},
            {"type": "number", "minimum": 0.01, "maximum": 1e17},
        ],
        "description": "Decimal, at most two places, greater than zero",
    }
)
class AmountField(serializers.DecimalField):
    def __init__(self, **kwargs):
        super().__init__(max_digits=20, decimal_places=2, min_value=Decimal("0.01"), **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        # Decimal() itself also takes "1_000", "1e3" and other scripts' digits; a
        # numeric string here is plain ASCII digits with an optional point.
        if isinstance(data, str) and not NUMERIC_STRING.fullmatch(data.strip()):
            self.fail("invalid")
        return super().to_internal_value(data)


class ClientOrderIdField(serializers.CharField):
    def __init__(self, **kwargs):
        super().__init__(min_length=1, max_length=64, trim_whitespace=False, **kwargs)
