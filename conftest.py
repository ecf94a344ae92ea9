"""Fixtures shared by every app's tests. The helpers live in importable modules
(core.testing, demo.testing; factories in finance/tests and orders/tests) and
are re-exported here for the test modules that import them from conftest."""

import pytest

from core import memo
from core.testing import ApiClient, money
from demo.testing import Demo, buy_body, load_demo, sell_body, trader_for

# Every test's log lines are checked for keys, secrets and card numbers.
pytest_plugins = ["core.tests.log_guard"]

__all__ = ["ApiClient", "Demo", "buy_body", "load_demo", "money", "sell_body", "trader_for"]


def pytest_collection_modifyitems(config, items):
    """`slow` means one thing everywhere: a test of minutes (real workers, brokers and
    databases started and killed) that `make reliability` runs (`pytest -m slow`) and
    every other run, `make test` included, skips."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with `make reliability` (pytest -m slow)")
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _forget_kept_rows():
    """Rows kept per process (core.memo) are forgotten between tests: a test's
    rows vanish with its rollback, which no signal reports."""
    memo.config_changed()
    yield


@pytest.fixture
def demo(db) -> Demo:
    return load_demo()


@pytest.fixture
def demo_transactional(transactional_db) -> Demo:
    return load_demo()


@pytest.fixture
def shop(demo) -> ApiClient:
    return ApiClient("demo-shop-key")


@pytest.fixture
def form_shop(demo) -> ApiClient:
    return ApiClient("demo-form-key")


@pytest.fixture
def closed_shop(demo) -> ApiClient:
    return ApiClient("demo-closed-key")


@pytest.fixture
def traders(demo) -> list[ApiClient]:
    return [ApiClient(f"demo-trader-{i}-key") for i in (1, 2, 3)]


@pytest.fixture
def anonymous() -> ApiClient:
    return ApiClient(None)


@pytest.fixture
def terminal(db):
    """A terminal of its own (factories): key `terminal.raw_key`, nothing deposited, no
    methods enabled."""
    from finance.tests.factories import TerminalFactory

    return TerminalFactory()


@pytest.fixture
def merchant(terminal) -> ApiClient:
    """The API as `terminal` sees it."""
    return ApiClient(terminal.raw_key)
