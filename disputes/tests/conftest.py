import pytest
from django.core.files.storage import default_storage

from core.testing import ApiClient, operator_user_create
from demo.testing import buy_body
from orders.tests.world import World


@pytest.fixture(autouse=True)
def evidence_storage(settings, tmp_path):
    """Each test gets its own private storage, so "nothing stored" can be checked as
    "the storage is empty"."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "private-media"), "base_url": None},
        },
    }
    return default_storage


def dispute_world() -> World:
    """A shop with 100000.00 deposited (a Sell reserves from it) and two requisites on
    Sberbank SBP, which takes Buy orders of 100 to 300000 at 5 %."""
    return World.build({"Sberbank SBP": 2}, available="100000.00")


@pytest.fixture
def world(db) -> World:
    return dispute_world()


@pytest.fixture
def shop(world) -> ApiClient:
    return world.api


@pytest.fixture
def closed_shop(world) -> ApiClient:
    """Another merchant's terminal."""
    return world.other_terminal()


@pytest.fixture
def order(shop, world) -> dict:
    """A Pending Buy of 1000.00, as the API answered its creation."""
    return shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()


@pytest.fixture
def operator(client, db):
    """The test client signed in as an operator, reading the admin in English."""
    operator_user_create()
    assert client.login(username="operator", password="operator-demo-password")
    client.cookies["django_language"] = "en"  # these pages' words, in English
    return client
