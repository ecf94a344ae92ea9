"""Reading an amount someone typed or sent: one set of rules and one set of words for
every endpoint and page that takes an amount (orders, forms, disputes, the sandbox's
and the trader's `paid_amount`, withdrawals).

An amount is greater than zero, has at most two decimals and at most twelve digits
before the point. What is wrong with a refused one is said in its own words."""

import re
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext_lazy as _

from .money import CENT

MAX_WHOLE_DIGITS = 12
MAX_AMOUNT = Decimal("999999999999.99")

# The exact words, by what is wrong. The same on every endpoint (and in the schema's
# description), so a client can show them to a person as they are.
AMOUNT_MESSAGES = {
    "invalid": "Must be a number written with digits and a dot, such as 1000.00",
    "decimals": "Too many decimal places: at most two, such as 10.01",
    "separator": "A separator inside the number: write the digits together with one dot "
    "before the decimals, such as 1000.00",
    "exponent": "An exponent is not accepted: write the number in full, such as 1000.00",
    "zero": "Must be greater than zero",
    "negative": "A negative amount is not accepted: it must be greater than zero",
    "too_large": "Too many digits before the decimal point: at most twelve",
}

# A positive amount with at most 12 digits before the point and 2 after it
# (surrounding spaces allowed). The schema and the server use this one pattern, so
# "schema-valid" and "accepted" agree.
AMOUNT_PATTERN = r"^\s*0*(?:[1-9][0-9]{0,11}(?:\.[0-9]{1,2})?|\.(?:0[1-9]|[1-9][0-9]?))\s*$"

_NUMERAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)")
_EXPONENT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+")
# Digits grouped or written the local way: "1 000", "1_000", "1,000.00", "10,50",
# "1'000", with any kind of space (a no-break space too).
_SEPARATED = re.compile(r"[+-]?[0-9]+(?:[\s_,'’.][0-9]+)+")
# JSON numbers arrive as Decimal; a binary float's artifacts of a 2-place amount
# (0.57 written as 0.5700000000000001) are read as that amount.
_FLOAT_NOISE = Decimal("1e-9")


class AmountError(ValueError):
    """An amount that is refused; `code` is a key of AMOUNT_MESSAGES."""

    def __init__(self, code: str):
        self.code = code
        super().__init__(AMOUNT_MESSAGES[code])


def _from_text(text: str) -> Decimal:
    text = text.strip()
    if _NUMERAL.fullmatch(text):
        return Decimal(text)
    if _EXPONENT.fullmatch(text):
        raise AmountError("exponent")
    if _SEPARATED.fullmatch(text):
        raise AmountError("separator")
    raise AmountError("invalid")


def _from_number(value: Decimal) -> Decimal:
    if not value.is_finite():
        raise AmountError("invalid")
    # A numeral written without an exponent never has a positive one (1e3 -> 1E+3).
    if value.as_tuple().exponent > 0:
        raise AmountError("exponent")
    return value


def read_amount(value) -> Decimal:
    """`value` (text, or a JSON number: int or Decimal) as money, or AmountError."""
    if isinstance(value, bool):
        raise AmountError("invalid")
    if isinstance(value, str):
        amount = _from_text(value)
    elif isinstance(value, int):
        amount = Decimal(value)
    elif isinstance(value, float):
        amount = _from_number(Decimal(repr(value)))
    elif isinstance(value, Decimal):
        amount = _from_number(value)
    else:
        raise AmountError("invalid")
    if amount < 0:
        raise AmountError("negative")
    if amount == 0:
        raise AmountError("zero")
    # adjusted() is the power of ten of the first digit; checked before any quantize,
    # which would overflow the context for a huge number.
    if amount.adjusted() >= MAX_WHOLE_DIGITS:
        raise AmountError("too_large")
    try:
        rounded = amount.quantize(CENT)
    except InvalidOperation:  # pragma: no cover - bounded above
        raise AmountError("too_large")
    if rounded != amount:
        if isinstance(value, str) or abs(rounded - amount) >= _FLOAT_NOISE:
            raise AmountError("decimals")
    return rounded


# The same, as the pages say it to a person (the cabinet, the admin's forms), in the
# page's language: each wrong amount still in its own words.
AMOUNT_WORDS = {
    "invalid": _("Write the amount in digits, e.g. 3100.50."),
    "too_large": _("Too many digits before the decimal point: at most twelve."),
    "decimals": _("At most two digits after the decimal point."),
    "separator": _("Write the amount without separators inside it, e.g. 3100.50."),
    "exponent": _("Write the amount without an exponent."),
    "zero": _("The amount must be above zero."),
    "negative": _("A negative amount is not accepted: the amount must be above zero."),
}


def read_typed_amount(text: str) -> Decimal:
    """An amount a person typed into a page: read_amount's rules, with the decimal
    comma people type (`3100,50`) read as a point."""
    text = (text or "").strip()
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    return read_amount(text)


def paid_amount_problem(paid_amount: Decimal, *, amount: Decimal) -> str | None:
    """Why `paid_amount` cannot be what arrived for an order of `amount` (above zero,
    at most twice the amount, as a trader's confirm takes it), or None."""
    if paid_amount <= 0:
        return AMOUNT_MESSAGES["zero"]
    if paid_amount > amount * 2:
        return f"Must be at most twice the order's amount ({amount * 2:.2f})"
    return None
