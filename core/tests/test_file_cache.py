"""The embedded default's cache (no Redis): counters keep the window they were opened
with, and making room never takes a live counter while expired ones are there."""

import os
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


def test_making_room_takes_expired_entries_before_live_ones(files, monkeypatch):
    monkeypatch.setattr(files, "CULL_EVERY", 0.0)  # room made on every write
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


def test_room_is_made_at_most_every_cull_every_seconds(files, monkeypatch):
    """Making room lists the folder: not on every write, once in CULL_EVERY."""
    listings = []
    listed = files._list_cache_files
    monkeypatch.setattr(files, "_list_cache_files", lambda: listings.append(1) or listed())
    for n in range(8):  # over MAX_ENTRIES (5) from the sixth on
        files.set(f"k-{n}", n, timeout=900)
    assert len(listings) == 1
    monkeypatch.setattr(files, "_next_cull", 0.0)  # CULL_EVERY has passed
    files.set("k-8", 8, timeout=900)
    assert len(listings) == 2
    assert len(files._list_cache_files()) < 9  # room was made


def test_a_write_replaces_the_entry_and_makes_a_missing_folder(files, tmp_path):
    import shutil

    files.set("version", 1, timeout=None)
    files.set("version", 2, timeout=None)
    assert files.get("version") == 2
    assert sorted(os.listdir(files._dir)) == [os.path.basename(files._key_to_file("version"))]
    shutil.rmtree(files._dir)
    files.set("version", 3, timeout=None)
    assert files.get("version") == 3


def test_a_reader_beside_a_writer_sees_an_entry_or_none_never_half_of_one(files):
    """The replaced entry is removed before the new one is moved in: a reader sees the
    old value, the new one, or (for that moment) none."""
    import threading

    files.set("version", 0, timeout=None)
    seen, done = set(), threading.Event()

    def read():
        while not done.is_set():
            seen.add(files.get("version", "none"))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for n in range(1, 300):
            files.set("version", n, timeout=None)
    finally:
        done.set()
        reader.join()
    assert seen <= {*range(300), "none"}
    assert files.get("version") == 299
