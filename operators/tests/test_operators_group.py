"""An operator: staff in the Operators group, not a superuser; the group holds what
operators need and nothing more (the demo set's operator is made the same way)."""

from django.contrib.auth import get_user_model
from django.core.management import call_command

from core.testing import operator_user_create


def test_an_operator_of_the_group_may_do_an_operators_work_and_no_more(client, db):
    operator_user_create()  # the `operators_group` command's group, and a staff user in it
    operator = get_user_model().objects.get(username="operator")
    assert operator.is_staff and not operator.is_superuser
    assert list(operator.groups.values_list("name", flat=True)) == ["Operators"]
    assert operator.has_perm("orders.change_order")
    assert operator.has_perm("disputes.change_dispute")
    assert operator.has_perm("webhooks.change_webhookdelivery")
    assert not operator.has_perm("auth.change_user")
    assert not operator.has_perm("auth.add_group")
    assert not operator.has_perm("orders.delete_order")
    assert not operator.has_perm("otp_totp.change_totpdevice")

    assert client.login(username="operator", password="operator-demo-password")
    assert client.get("/admin/auth/user/").status_code == 403
    assert client.get("/admin/orders/order/").status_code == 200


def test_the_group_command_restores_exactly_its_permissions(db):
    from django.contrib.auth.models import Group, Permission

    call_command("operators_group", verbosity=0)
    group = Group.objects.get(name="Operators")
    before = set(group.permissions.values_list("pk", flat=True))
    group.permissions.add(Permission.objects.get(codename="delete_user"))
    call_command("operators_group", verbosity=0)
    assert set(group.permissions.values_list("pk", flat=True)) == before
