"""How the cabinet writes money and time: as the payer's page does (`3 100,00 ₽`)."""

from decimal import Decimal

from django import template

register = template.Library()

NBSP = "\u00a0"


@register.filter
def rub(amount, lang: str = "ru") -> str:
    """3 100,00 ₽ in Russian, 3,100.00 ₽ in English; empty for None."""
    if amount is None:
        return ""
    grouped = f"{Decimal(amount):,.2f}"
    if lang == "ru":
        grouped = grouped.translate(str.maketrans({",": NBSP, ".": ","}))
    return grouped + NBSP + "₽"


@register.filter
def mmss(seconds) -> str:
    """Seconds as mm:ss (minutes may pass 99)."""
    seconds = max(0, int(seconds or 0))
    minutes, rest = divmod(seconds, 60)
    return f"{minutes:02d}:{rest:02d}"
