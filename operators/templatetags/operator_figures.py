"""Figures as operators read them: one format for every number on the dashboard, the
active language's (in Russian `7 350,00` and `75,0`, with a no-break space between
thousands so a figure never wraps)."""

from decimal import Decimal

from django import template
from django.utils.formats import number_format

register = template.Library()


@register.filter
def money(value) -> str:
    """An amount with two decimals and grouped thousands."""
    return number_format(Decimal(value or 0), decimal_pos=2, force_grouping=True)


@register.filter
def share(value) -> str:
    """A percentage with one decimal."""
    return number_format(Decimal(value or 0), decimal_pos=1, force_grouping=True)


@register.filter
def count(value) -> str:
    """A whole number with grouped thousands."""
    return number_format(int(value or 0), force_grouping=True)
