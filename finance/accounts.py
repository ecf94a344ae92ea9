"""Customer accounts: the canonical form of a payer's phone or card number, and the blacklist."""

import re

from core.errors import InvalidRequest

from .models import BlacklistedAccount, MethodType

_PHONE_SEPARATORS = re.compile(r"[\s\-()]")
_CARD_SEPARATORS = re.compile(r"[\s\-]")


def luhn_ok(digits: str) -> bool:
    """The card-number checksum (ISO/IEC 7812)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def normalize_account(value: str, method_type: str) -> str:
    """Canonical form of a customer account for `method_type`, or InvalidRequest."""
    value = value.strip()
    if method_type == MethodType.SBP:
        compact = _PHONE_SEPARATORS.sub("", value)
        # ASCII digits only: \d would let other scripts' digits past the blacklist.
        if re.fullmatch(r"\+7[0-9]{10}", compact):
            return compact
        if re.fullmatch(r"[78][0-9]{10}", compact):
            return "+7" + compact[1:]
        raise InvalidRequest(
            "Invalid customer_account: SBP takes a Russian phone number (+7 and 10 digits)",
            errors={"customer_account": ["Expected a Russian phone number: +7 and 10 digits"]},
        )
    if method_type == MethodType.BANK_CARD:
        compact = _CARD_SEPARATORS.sub("", value)
        if re.fullmatch(r"[0-9]{16,19}", compact) and luhn_ok(compact):
            return compact
        raise InvalidRequest(
            "Invalid customer_account: BankCard takes 16 to 19 digits passing the Luhn check",
            errors={"customer_account": ["Expected a card number: 16 to 19 digits, Luhn-valid"]},
        )
    raise InvalidRequest(f"Unsupported method type {method_type}")


def account_is_blacklisted(account: str) -> bool:
    return BlacklistedAccount.objects.filter(account=account).exists()
