"""The embedded default's cache (no Redis): counters keep the window they were opened
with, and making room never takes a live counter while expired ones are there."""

import pickle
import time

import pytest

from core.cache import FileCache
from core.throttling import window_counts


@pytest.fixture
def files(tmp_path):
    return FileCache(str(tmp_path / "cache"), {"OPTIONS": {"MAX_ENTRIES": 5}})


def expiry_of(cache, key):
    with open(cache._key_to_file(key), "rb") as f:
        return pickle.load(f)


def test_a_counter_keeps_its_window_through_counts(files):
    files.add("count", 1, timeout=900)
    opened = expiry_of(files, "count")
    assert files.incr("count") == 2
    assert files.incr("count", 3) == 5
    assert files.get("count") == 5
    # The stock incr rewrote the entry with the default timeout (300 s from now).
    assert abs(expiry_of(files, "count") - opened) < 1


def test_an_ended_window_is_not_counted_on(files):
    files.add("count", 1, timeout=0.05)
    time.sleep(0.1)
    with pytest.raises(ValueError):
        files.incr("count")


def test_making_room_takes_expired_entries_before_live_ones(files):
    files.set("sign-in", 3, timeout=900)
    for n in range(3):
        files.set(f"old-{n}", n, timeout=0.05)
    files.set("other", 1, timeout=900)
    time.sleep(0.1)
    for n in range(3):  # each over the limit of 5 entries: a cull each time
        files.set(f"new-{n}", n, timeout=900)
    assert files.get("sign-in") == 3 and files.get("other") == 1
    assert [files.get(f"new-{n}") for n in range(3)] == [0, 1, 2]


def test_counts_taken_together_are_in_the_same_order(settings, tmp_path):
    settings.CACHES = {
        "default": {"BACKEND": "core.cache.FileCache", "LOCATION": str(tmp_path / "c")}
    }
    assert window_counts(["pair", "address"], 60) == [1, 1]
    assert window_counts(["pair", "address"], 60) == [2, 2]
    assert window_counts(["other-pair", "address"], 60) == [1, 3]


def test_a_number_kept_has_no_expiry(files):
    files.number_keep("version", 12345)
    assert files.get("version") == 12345
    assert expiry_of(files, "version") is None
