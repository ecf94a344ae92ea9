"""How the payer's page writes amounts and times in its language."""

from decimal import Decimal
from zoneinfo import ZoneInfo

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


MOSCOW = ZoneInfo("Europe/Moscow")


@register.filter
def moscow_time(moment) -> str:
    """A moment as Moscow's clocks show it, for the page before its script (which
    writes it in the payer's own zone) runs."""
    if moment is None:
        return ""
    return moment.astimezone(MOSCOW).strftime("%d.%m.%Y %H:%M")
