"""Message tables written as the contract writes them: one message a line,
`source | title | text | amount | direction | bank`, `-` for null, NBSP and THIN for
U+00A0 and U+202F, and the bank by the name BANK_CODES knows."""

from decimal import Decimal

BANK_CODES = {
    "Sberbank": "100000000111",
    "T-Bank": "100000000004",
    "Alfa-Bank": "100000000008",
    "VTB": "100000000005",
    "Ozon": "100000000273",
    "MTS": "100000000017",
    "-": None,
}
SPELLED = {"NBSP": "\u00a0", "THIN": "\u202f", "THINSP": "\u2009", "FIGSP": "\u2007"}


def _spelled(value: str) -> str:
    for name in sorted(SPELLED, key=len, reverse=True):
        value = value.replace(name, SPELLED[name])
    return value


def message_rows(table: str) -> list[tuple]:
    """(source, title, text, amount or None, direction or None, nspk_code or None)."""
    rows = []
    for line in table.strip().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        source, title, text, amount, direction, bank = (c.strip() for c in line.split("|"))
        rows.append(
            (
                source,
                title,
                _spelled(text),
                None if amount == "-" else Decimal(amount).quantize(Decimal("0.01")),
                None if direction == "-" else direction,
                BANK_CODES[bank],
            )
        )
    return rows
