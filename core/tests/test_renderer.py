"""The API's JSON renderer writes what DRF's own JSONRenderer writes, byte for byte,
for everything the service answers. (One difference is left: a float under 1e-4 is
written 1e-7, not 1e-07; both are the same JSON number, and the service's only floats
are money, 0.01 and up.)"""

import uuid
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.exceptions import ErrorDetail
from rest_framework.renderers import JSONRenderer as DRFRenderer
from rest_framework.utils.serializer_helpers import ReturnDict

from core.renderers import JSONRenderer

SAMPLES = [
    {"success": True, "message": "OK", "orders": {"total": 0, "items": []}},
    {"amount": "1000.00", "fixed_fee": 50.0, "fee": Decimal("3.50"), "n": 7, "none": None},
    {"name": "Иван Петров", "emoji": "💳", "quote": 'a "b" \\ c', "ctl": "\x01\n\t"},
    {"separators": "line\u2028paragraph\u2029end"},
    {"at": datetime(2026, 11, 25, 8, 0, 1, 123456, tzinfo=UTC), "day": date(2026, 11, 25)},
    {"moscow": datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=3)))},
    {"span": timedelta(seconds=90)},
    {"id": uuid.UUID("12345678-1234-5678-1234-567812345678"), 1: "int key"},
    {"lazy": gettext_lazy("Payment method not found"), "detail": ErrorDetail("bad", "x")},
    ReturnDict(
        {"errors": {"amount": [ErrorDetail("A valid number is required.", "invalid")]}},
        serializer=None,
    ),
    [1, 2.5, -0.0, 0.01, 50.0, 1e16, 123456789.12, True, False],
    {"over_64_bits": 10**30},
    "just a string",
]


@pytest.mark.parametrize("data", SAMPLES)
def test_same_bytes_as_drf(data):
    assert JSONRenderer().render(data) == DRFRenderer().render(data)


def test_indented_output_is_drf_own():
    data = {"a": [1, {"b": "c"}]}
    media = "application/json; indent=2"
    assert JSONRenderer().render(data, media) == DRFRenderer().render(data, media)


def test_nothing_renders_as_empty_body():
    assert JSONRenderer().render(None) == b""
