"""The banks the service knows, by their national instant-payment scheme code
(`nspk_code`): the one table of their English and Russian names."""

from typing import NamedTuple


class Bank(NamedTuple):
    nspk_code: str
    name: str
    name_ru: str


BANKS: dict[str, Bank] = {
    bank.nspk_code: bank
    for bank in (
        Bank("100000000111", "Sberbank", "Сбербанк"),
        Bank("100000000004", "T-Bank", "Т-Банк"),
        Bank("100000000008", "Alfa-Bank", "Альфа-Банк"),
        Bank("100000000005", "VTB", "ВТБ"),
        Bank("100000000273", "Ozon Bank", "Озон Банк"),
        Bank("100000000017", "MTS Bank", "МТС Банк"),
    )
}


def bank_for(nspk_code: str | None) -> Bank | None:
    """The bank of a code, None for a code the table does not know."""
    return BANKS.get(nspk_code) if nspk_code else None
