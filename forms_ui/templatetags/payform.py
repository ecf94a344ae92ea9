"""How the payer's page writes amounts and times in its language."""

from decimal import Decimal

from django import template

register = template.Library()

NBSP = "\u00a0"


@register.filter
def money_shown(amount, lang: str) -> str:
    """3 100,00 ₽ in Russian, 3,100.00 ₽ in English."""
    if amount is None:
        return ""
    text = f"{Decimal(amount):,.2f}"
    if lang == "ru":
        text = text.replace(",", NBSP).replace(".", ",")
    return f"{text}{NBSP}₽"


@register.filter
def minutes_seconds(seconds) -> str:
    """A number of seconds as M:SS, as the page's script writes it."""
    if seconds is None:
        return ""
    return f"{seconds // 60}:{seconds % 60:02d}"
