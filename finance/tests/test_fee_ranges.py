"""The fee-range rules, as the admin (and anything else saving ranges) applies them."""

from decimal import Decimal

import pytest

from core.errors import InvalidRequest
from finance.services import fee_ranges_check


def fee_range(side="Buy", low="100", high="1000", fee="2.5", currency="RUB") -> dict:
    return {
        "side": side,
        "currency": currency,
        "min_amount": Decimal(low),
        "max_amount": Decimal(high),
        "fee": Decimal(fee),
    }


def test_ranges_that_touch_but_do_not_overlap_are_accepted():
    fee_ranges_check(
        [fee_range(low="100", high="999.99"), fee_range(low="1000", high="5000"), fee_range("Sell")]
    )


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        ([fee_range(low="100", high="1000"), fee_range(low="1000", high="2000")], "overlap"),
        ([fee_range(fee="100.01")], "at most 100"),
        ([fee_range(low="500", high="100")], "minimum is above the maximum"),
    ],
)
def test_bad_ranges_are_refused(ranges, message):
    with pytest.raises(InvalidRequest) as exc:
        fee_ranges_check(ranges)
    assert message in exc.value.message
