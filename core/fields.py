"""Field types the order, form and dispute endpoints share."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .amounts import AMOUNT_MESSAGES, AMOUNT_PATTERN, MAX_AMOUNT, AmountError, read_amount
from .formats import http_url_problem
from .money import money_str


def validate_http_url(value: str, *, max_length: int) -> str:
    problem = http_url_problem(value, max_length=max_length)
    if problem:
        raise serializers.ValidationError(problem)
    return value


class HttpUrlField(serializers.CharField):
    """An http(s) URL of at most `url_max_length` characters (its schema, and its
    subclasses': core.schema.HttpUrlFieldScheme). Taken as sent: whitespace around it is refused
    as the pattern refuses it, not trimmed."""

    def __init__(self, *, url_max_length: int = 2048, **kwargs):
        self.url_max_length = url_max_length
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        return validate_http_url(value, max_length=self.url_max_length)


class FormUrlField(HttpUrlField):
    """A payment form's redirect, support or return link: api.md says "When empty, no
    redirect" (no button, not displayed), so an empty string is taken as none is."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_blank", True)
        super().__init__(**kwargs)


AMOUNT_DESCRIPTION = (
    "Decimal greater than zero with at most two places and at most twelve digits before "
    "the point. Refused amounts say why: " + "; ".join(f'"{m}"' for m in AMOUNT_MESSAGES.values())
)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": AMOUNT_PATTERN, "example": "1000.00"},
            {
                "type": "number",
                "minimum": 0.01,
                "maximum": float(MAX_AMOUNT),
                "multipleOf": 0.01,
            },
        ],
        "description": AMOUNT_DESCRIPTION + '. A string (preferred, e.g. "1000.00") or a '
        "JSON number.",
    }
)
class AmountField(serializers.Field):
    """An amount in a request (core.amounts' rules and words); in a response, a string
    with two decimals."""

    default_error_messages = AMOUNT_MESSAGES

    def to_internal_value(self, data):
        try:
            return read_amount(data)
        except AmountError as exc:
            self.fail(exc.code)

    def to_representation(self, value):
        return money_str(value)


@extend_schema_field(
    {
        "type": "string",
        "pattern": AMOUNT_PATTERN,
        "example": "1000.00",
        "description": AMOUNT_DESCRIPTION + ".",
    }
)
class FormAmountField(AmountField):
    """An amount sent as a form field (multipart), where every value is text."""


class ClientOrderIdField(serializers.CharField):
    def __init__(self, **kwargs):
        super().__init__(min_length=1, max_length=64, trim_whitespace=False, **kwargs)


class TextAsSentMixin:
    """Text judged as the schema judges it: `max_length` counted on the text as sent,
    as `maxLength` counts it, not on what is left once its surrounding whitespace is
    trimmed; and, when `strict`, taken only as a JSON string, as `type: string` says
    (DRF's own CharField takes a number as its text): anything else is 400 "Not a valid
    string."."""

    strict = False

    def run_validation(self, data=serializers.empty):
        if isinstance(data, str) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().run_validation(data)

    def to_internal_value(self, data):
        if self.strict and not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(TextAsSentMixin, serializers.CharField):
    """Text taken only as a JSON string (TextAsSentMixin)."""

    strict = True


class TrimmedTextField(TextAsSentMixin, serializers.CharField):
    """Text (a query's filter, a body's field) whose surrounding whitespace is trimmed
    and which is 400 when nothing else is left: the schema states it with
    NOT_BLANK_PATTERN (core/schema.py), so "schema-valid" and "accepted" agree.
    `strict`: a JSON string only (TextAsSentMixin); the merchants' fields take a
    number as its text, as they always have."""

    def __init__(self, *, strict: bool = False, **kwargs):
        self.strict = strict
        super().__init__(**kwargs)
