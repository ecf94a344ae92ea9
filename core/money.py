"""The one place where amounts become money: Decimal, two places, half-up."""

from decimal import ROUND_HALF_UP, Decimal

from django.db import models

CENT = Decimal("0.01")


def quantize_money(value: Decimal | int | str) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def fee_for(amount: Decimal, *, rate: Decimal, fixed: Decimal) -> Decimal:
    """Money charged on `amount`: the percentage rounded once, plus the fixed part."""
    return quantize_money(amount * rate / Decimal(100)) + quantize_money(fixed)


def money_str(value: Decimal | str) -> str:
    """Money as the contract writes it, two decimals; text is kept as it is (a sum the
    database has written in this form already: a list's rows)."""
    if isinstance(value, str):
        return value
    return f"{quantize_money(value):.2f}"


def money_number(value: Decimal | None) -> float | None:
    """For the few places the contract wants a JSON number instead of a string."""
    if value is None:
        return None
    return float(quantize_money(value))


class MoneyField(models.DecimalField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_digits", 20)
        kwargs.setdefault("decimal_places", 2)
        super().__init__(*args, **kwargs)

    def formfield(self, **kwargs):
        # What an operator types: at most twelve digits before the point, two after it
        # (core.amounts' rule), said in the admin's language by Django's own words.
        return super().formfield(**{"max_digits": 14, **kwargs})
