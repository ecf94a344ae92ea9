from django import template

from ..admin_part import audit_part

register = template.Library()


@register.simple_tag
def audit_log_of(obj):
    """The object's part of the audit log (its admin change page shows it)."""
    return audit_part(obj)
