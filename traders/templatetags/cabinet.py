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


@register.filter
def method_name(method, lang: str = "ru") -> str:
    """A payment method's name in the page's language (its Russian name when it has one)."""
    return method.payer_name(lang) if method is not None else ""


# A Sell's customer_bank (the slug the merchant sent) by the bank's name (section 21).
BANK_NAMES = {
    "sberbank": ("Сбербанк", "Sberbank"),
    "tinkoff": ("Т-Банк", "T-Bank"),
    "alfabank": ("Альфа-Банк", "Alfa-Bank"),
    "vtb": ("ВТБ", "VTB"),
}


@register.filter
def bank_name(slug, lang: str = "ru") -> str:
    names = BANK_NAMES.get((slug or "").lower())
    if names is None:
        return slug or ""
    return names[0] if lang == "ru" else names[1]
