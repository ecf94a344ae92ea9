"""The shared cache's Redis backend, with two things the stock one lacks.

- One client per connection pool, made once: Django's client builds a new
  `redis.Redis` (and its table of response callbacks) on every call, which cost more
  than the round trip itself on every rate-limited request.
- `round_trip`: a request's counters in one trip to Redis (a pipeline): the rate
  limit's INCR and the reads every request makes (the failed-auth count, the
  configuration generation), where the stock API would take one trip each (two for
  an INCR: it asks first whether the key exists). Several counters are counted in one
  MULTI, so no other count of them comes between: the n-th try is n-th in each.
- `number_keep`: a number kept with no expiry in one plain SET, without what the stock
  `set` spends around it on every call (the memcached key check, redis-py's argument
  wrappers): for the version a trader's every order change writes (traders.live).
- `clear` removes this cache's own keys (its KEY_PREFIX), where the stock one empties
  the whole Redis database: the Celery broker's queues when they share it, and the
  keys of every other process whose prefix differs (each test worker has its own).

`FileCache` is the embedded default's (one machine, no Redis): its counters keep the
window they were opened with (the stock `incr` rewrites the entry with the default
timeout), making room removes what has expired before anything that has not, and a
write costs a tenth of the stock one's (`FileCache.set`).
"""

import os
import pickle
import random
import tempfile
import time
import zlib

from django.core.cache.backends import redis as django_redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache


def _glob_escape(text: str) -> str:
    """`text` matched as itself in a Redis glob pattern (SCAN MATCH)."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients[index] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient

    def clear(self) -> None:
        """UNLINK every key under this cache's prefix (SCAN, a batch at a time), and
        nothing else in the database."""
        client = self._cache.get_client(write=True)
        pattern = _glob_escape(self.key_prefix) + ":*"
        batch = []
        for name in client.scan_iter(match=pattern, count=1000):
            batch.append(name)
            if len(batch) == 1000:
                client.unlink(*batch)
                batch = []
        if batch:
            client.unlink(*batch)

    def number_keep(self, key: str, number: int) -> None:
        """`set(key, number, timeout=None)` for a key of our own (no check for what
        memcached could not take): the number stored as the stock serializer stores an
        int, as itself, so `get` reads it back the same."""
        client = self._cache.get_client(write=True)
        client.execute_command("SET", self.make_key(key), number)

    def round_trip(self, *, incr: list[str], period: int, get: list[str]) -> tuple:
        """INCR each key of `incr` (counters kept `period` seconds from their first count)
        and GET each key of `get`, in one trip; returns ([counts], [values])."""
        client = self._cache.get_client(write=True)
        pipe = client.pipeline(transaction=len(incr) > 1)
        counters = [self.make_and_validate_key(key) for key in incr]
        for counter in counters:
            pipe.incr(counter)
            pipe.ttl(counter)
        for key in get:
            pipe.get(self.make_and_validate_key(key))
        out = pipe.execute()
        counts, out = out[: 2 * len(counters)], out[2 * len(counters) :]
        for counter, ttl in zip(counters, counts[1::2], strict=True):
            if ttl == -1:  # the window's first count: it must not outlive the window
                client.expire(counter, period)
        loads = self._cache._serializer.loads
        return counts[::2], [None if value is None else loads(value) for value in out]


class FileCache(FileBasedCache):
    # Room is made (the cache's folder listed) at most this often, by each instance.
    CULL_EVERY = 5.0

    def __init__(self, dir, params):
        super().__init__(dir, params)
        self._next_cull = 0.0

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        """As the stock `set`: the entry written to a new file that is then moved into
        place, so no reader meets half of one. But the entry it replaces is removed
        first: ext4 writes a file's data out to disk before a rename over another file
        (its guard for replace-by-rename), some 200 us on every rate-limited request,
        where a rename onto no file and the removal cost 50. A reader in that moment
        finds no entry, which a cache's readers take as a lost one: a version is
        started afresh, a count peeked at reads 0; a counter's writers take turns
        (core.throttling's lock). The stock `set` also makes the folder and lists it
        (to make room) on every write: here the folder is made when it is missing, and
        room is made at most every CULL_EVERY seconds (a listing of up to MAX_ENTRIES
        files)."""
        fname = self._key_to_file(key, version)
        now = time.monotonic()
        if now >= self._next_cull:
            self._next_cull = now + self.CULL_EVERY
            self._cull()
        try:
            fd, tmp_path = tempfile.mkstemp(dir=self._dir)
        except FileNotFoundError:  # the folder was removed, or never made
            self._createdir()
            fd, tmp_path = tempfile.mkstemp(dir=self._dir)
        moved = False
        try:
            with open(fd, "wb") as f:
                self._write_content(f, timeout, value)
            try:
                os.remove(fname)
            except FileNotFoundError:
                pass
            os.rename(tmp_path, fname)
            moved = True
        finally:
            if not moved:
                os.remove(tmp_path)

    def number_keep(self, key: str, number: int) -> None:
        self.set(key, number, timeout=None)

    def incr(self, key, delta=1, version=None):
        """As the stock `incr` (the caller serialises counts: core.throttling), but the
        entry keeps its expiry."""
        fname = self._key_to_file(key, version)
        try:
            with open(fname, "rb") as f:
                expiry = pickle.load(f)
                if expiry is not None and expiry < time.time():
                    raise FileNotFoundError(fname)
                value = pickle.loads(zlib.decompress(f.read()))
        except (FileNotFoundError, EOFError):
            raise ValueError(f"Key '{key}' not found") from None
        value += delta
        left = None if expiry is None else max(expiry - time.time(), 0.001)
        self.set(key, value, timeout=left, version=version)
        return value

    def _cull(self):
        """Expired entries go first; only when the live ones alone are too many does a
        random share of them go (the stock cull removes a random share at once, live
        sign-in counts among them)."""
        files = self._list_cache_files()
        if len(files) < self._max_entries:
            return
        live = []
        for fname in files:
            try:
                with open(fname, "rb") as f:
                    expired = self._is_expired(f)  # removes the file when it is
            except FileNotFoundError:
                continue
            if not expired:
                live.append(fname)
        if len(live) >= self._max_entries:
            share = len(live) // self._cull_frequency if self._cull_frequency else len(live)
            for fname in random.sample(live, share):
                self._delete(fname)
