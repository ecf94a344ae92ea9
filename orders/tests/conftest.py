"""Fixtures of orders' tests."""

import pytest

from core.testing import operator_user_create
from orders.tests.world import World


@pytest.fixture
def world(db):
    """A shop with 100000.00 deposited, two requisites on Sberbank SBP and one on each of
    T-Bank SBP and the bank card; none on Ozon Bank SBP; the aggregate SBP and an
    inactive Legacy card; the blacklist's card and phone."""
    return World.build(
        {
            "SBP": 0,
            "Sberbank SBP": 2,
            "T-Bank SBP": 1,
            "Bank card": 1,
            "Ozon Bank SBP": 0,
            "Legacy card": 0,
        },
        available="100000.00",
        blacklist=True,
    )


@pytest.fixture
def operator_user(db):
    """A staff user of the Operators group: `operator` / `operator-demo-password`."""
    return operator_user_create()
