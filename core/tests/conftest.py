"""Fixtures of core's tests."""

import pytest


@pytest.fixture
def world(db):
    """A terminal, method and trader of the test's own (webhooks/tests/world.py)."""
    from webhooks.tests.world import World

    return World.build()


@pytest.fixture
def operator_user(db):
    """A staff user in the Operators group, `operator` / `operator-demo-password` (the
    demo set's sign-in, without the rest of the set)."""
    from io import StringIO

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    call_command("operators_group", verbosity=0, stdout=StringIO())
    user = get_user_model().objects.create_user(
        "operator", "operator@example.com", "operator-demo-password", is_staff=True
    )
    user.groups.add(Group.objects.get(name="Operators"))
    return user
