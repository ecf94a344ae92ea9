"""What the Operators group may do: the business's back office and nothing around it.

Operators see every business record and add or change what their daily work touches
(confirm and cancel orders, resolve disputes, resend webhooks, onboard terminals and
issue or revoke their keys, top balances up through the ledger, keep traders'
requisites and the blacklist). They delete nothing but blacklist entries (everything
else is deactivated or revoked, and the ledger is append-only), and they never manage
users, groups, permissions or second-factor devices: that stays with a superuser.
"""

from django.contrib.auth.models import Group, Permission
from django.db.models import Q

GROUP_NAME = "Operators"
BUSINESS_APPS = ["finance", "orders", "webhooks", "forms_ui", "disputes", "settlements"]
DELETABLE = ["delete_blacklistedaccount"]


def operator_permissions():
    everyday = Q(codename__startswith="view_") | Q(codename__startswith="add_")
    everyday |= Q(codename__startswith="change_") | Q(codename__in=DELETABLE)
    return Permission.objects.filter(everyday, content_type__app_label__in=BUSINESS_APPS)


def operators_group_sync() -> Group:
    """Create the group, or bring an existing one back to exactly these permissions."""
    group, _ = Group.objects.get_or_create(name=GROUP_NAME)
    group.permissions.set(operator_permissions())
    return group
