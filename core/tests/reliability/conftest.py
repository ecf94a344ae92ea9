"""The fault tests take minutes: they run under `make reliability` (`-m slow`), not in
`make test`, which selects no marker."""

import pytest


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with `make reliability` (pytest -m slow)")
    for item in items:
        if item.get_closest_marker("slow") and "/reliability/" in str(item.fspath):
            item.add_marker(skip)
