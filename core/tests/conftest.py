"""Fixtures of core's tests."""

import pytest

from core.testing import operator_user_create


@pytest.fixture
def world(db):
    """A terminal, method and trader of the test's own (webhooks/tests/world.py)."""
    from webhooks.tests.conftest import SECRET
    from webhooks.tests.world import World

    return World.build(webhook_secret=SECRET)


@pytest.fixture
def operator_user(db):
    return operator_user_create()
