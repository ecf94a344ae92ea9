"""Figures as operators read them: one format for every number on the dashboard, the
active language's (in Russian `7 350,00` and `75,0`), from core.admin_pages."""

from django import template

from core.admin_pages import operator_count, operator_money, operator_share

register = template.Library()
register.filter("money", operator_money)
register.filter("share", operator_share)
register.filter("count", operator_count)
