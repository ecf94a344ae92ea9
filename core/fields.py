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


# A positive amount with at most 18 digits before the point and 2 after it
# (surrounding spaces allowed). The schema and the server use this one pattern, so
# "schema-valid" and "accepted" agree.
AMOUNT_PATTERN = r"^\s*0*(?:[1-9][0-9]{0,17}(?:\.[0-9]{1,2})?|\.(?:0[1-9]|[1-9][0-9]?))\s*$"
_AMOUNT_STRING = re.compile(AMOUNT_PATTERN)
# JSON numbers arrive as Decimal; a binary float's artifacts of a 2-place amount
# (0.57 written as 0.5700000000000001) are read as that amount.
_FLOAT_NOISE = Decimal("1e-9")


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": AMOUNT_PATTERN, "example": "1000.00"},
            {
                "type": "number",
                "minimum": 0.01,
                "maximum": 1e17,
                "multipleOf": 0.01,
            },
        ],
        "description": "Decimal greater than zero with at most two places: a string "
        '(preferred, e.g. "1000.00") or a JSON number',
    }
)
class AmountField(serializers.DecimalField):
    def __init__(self, **kwargs):
        super().__init__(max_digits=20, decimal_places=2, min_value=Decimal("0.01"), **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, str):
            # Decimal() itself also takes " 1", "1_000", "1e3" and other scripts'
            # digits; an amount string is exactly the schema's pattern.
            if not _AMOUNT_STRING.fullmatch(data):
                self.fail("invalid")
        elif isinstance(data, Decimal) and data.is_finite():
            rounded = data.quantize(Decimal("0.01"))
            if abs(rounded - data) < _FLOAT_NOISE:
                data = rounded
        return super().to_internal_value(data)


@extend_schema_field(
    {
        "type": "string",
        "pattern": AMOUNT_PATTERN,
        "example": "1000.00",
        "description": "Decimal greater than zero with at most two places",
    }
)
class FormAmountField(AmountField):
    """An amount sent as a form field (multipart), where every value is text."""


class ClientOrderIdField(serializers.CharField):
    def __init__(self, **kwargs):
        super().__init__(min_length=1, max_length=64, trim_whitespace=False, **kwargs)
