"""A person's permissions are kept between requests (core.permissions), and any change
to them, their groups or a group's permissions is seen by the very next request."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core.testing import operator_user_create

NEW = "/admin/settlements/new/"
PASSWORD = "operator-demo-password"


def may_enter(client: Client) -> bool:
    """Whether the page to enter a settlement opens (a refusal sends to the index)."""
    answer = client.get(NEW)
    assert answer.status_code in (200, 302)
    return answer.status_code == 200


def permission_statements(client: Client) -> int:
    with CaptureQueriesContext(connection) as seen:
        may_enter(client)
    return sum("auth_permission" in q["sql"] for q in seen.captured_queries)


@pytest.fixture
def person(db):
    operator_user_create()  # the Operators group, with the right to enter settlements
    user = get_user_model().objects.create_user("clerk", password=PASSWORD, is_staff=True)
    client = Client()
    assert client.login(username="clerk", password=PASSWORD)
    return user, client


def test_permissions_are_read_once_and_then_kept(person):
    user, client = person
    user.groups.add(Group.objects.get(name="Operators"))
    assert permission_statements(client) == 2  # the person's own, the groups'
    assert permission_statements(client) == 0
    assert may_enter(client)


def test_a_change_to_a_persons_groups_is_seen_by_the_next_request(person):
    user, client = person
    assert not may_enter(client)
    group = Group.objects.get(name="Operators")
    user.groups.add(group)
    assert may_enter(client)
    user.groups.remove(group)
    assert not may_enter(client)


def test_a_change_to_a_groups_or_a_persons_own_permissions_is_seen_at_once(person):
    user, client = person
    group = Group.objects.get(name="Operators")
    user.groups.add(group)
    assert may_enter(client)
    enter = Permission.objects.get(codename="add_settlement")
    group.permissions.remove(enter)
    assert not may_enter(client)
    user.user_permissions.add(enter)
    assert may_enter(client)
    user.user_permissions.clear()
    assert not may_enter(client)


def test_a_superuser_who_is_one_no_longer_keeps_nothing_of_it(person):
    user, client = person
    get_user_model().objects.filter(pk=user.pk).update(is_superuser=True)
    assert may_enter(client)
    get_user_model().objects.filter(pk=user.pk).update(is_superuser=False)
    assert not may_enter(client)
