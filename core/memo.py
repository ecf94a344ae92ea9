"""Read-mostly rows kept by each process between requests: API keys with their owners
and payment methods with their fee ranges, read on every request yet changed only by
operators.

An entry is used only while the shared configuration generation is the one it was
read under. Every change to a watched model bumps the generation once its transaction
commits (`watch`), so the next request of every process reads afresh; the request reads
the generation in the same trip to the cache as its rate-limit count (core.auth),
so keeping entries costs no round trip of its own. Nothing is kept or used when the
generation is unknown (the shared cache is down, or a request that did not read it):
those reads go to the database. Entries also age out after MAX_AGE seconds, in case a
bump was lost with the cache.

Entries hold field values, not model instances: every caller gets instances of its
own, which it may change or extend without another request seeing it.
"""

import copy
import logging
import secrets
import threading
import time
from contextvars import ContextVar

from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import request_started
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.base import ModelState
from django.db.models.signals import post_delete, post_init, post_save, pre_init

logger = logging.getLogger(__name__)

GENERATION_KEY = "config:generation"
MAX_AGE = 60.0
MAX_ENTRIES = 10_000

_generation: ContextVar[str | None] = ContextVar("config_generation", default=None)


def generation_read(value) -> None:
    """The generation this request read (None: unknown, keep nothing)."""
    if value is None:
        value = _generation_open()
    _generation.set(None if value is None else str(value))


def generation_known() -> bool:
    """Whether this request knows the generation, reading it now (one trip to the
    cache) when it has not yet: for requests that do not read it with a rate-limit
    count (the back office's pages)."""
    if _generation.get() is None:
        try:
            value = cache.get(GENERATION_KEY)
        except Exception as exc:
            logger.warning("Configuration generation unavailable: %s", exc)
            return False
        generation_read(value)
    return _generation.get() is not None


def _generation_open():
    """A generation where there is none yet (a fresh or restarted cache)."""
    try:
        cache.add(GENERATION_KEY, secrets.token_hex(8), timeout=None)
        return cache.get(GENERATION_KEY)
    except Exception as exc:
        logger.warning("Configuration generation unavailable: %s", exc)
        return None


def config_changed() -> None:
    """Every process's entries are stale from now on (this one's at once)."""
    _clear_local()
    try:
        cache.set(GENERATION_KEY, secrets.token_hex(8), timeout=None)
    except Exception as exc:  # entries still age out after MAX_AGE
        logger.warning("Configuration generation not bumped: %s", exc)


def _clear_local() -> None:
    for memo in Memo.all:
        memo.clear()


def changed() -> None:
    """A watched row changed in this transaction: this process forgets at once (its
    own next read may already see the change), every other once it is committed."""
    _clear_local()
    transaction.on_commit(config_changed)


def _changed(sender, **kwargs):
    changed()


class WatchedQuerySet(QuerySet):
    """The QuerySet of every watched model: update() and the bulk writes send no save
    signal, so they make the kept entries stale themselves (no caller has to
    remember to)."""

    def update(self, **kwargs):
        changed()
        return super().update(**kwargs)

    def update_quietly(self, **kwargs):
        """An update kept entries may miss: bookkeeping no kept reader decides on
        (a key's last_used_at)."""
        return super().update(**kwargs)

    def bulk_create(self, *args, **kwargs):
        changed()
        return super().bulk_create(*args, **kwargs)

    def bulk_update(self, *args, **kwargs):
        changed()
        return super().bulk_update(*args, **kwargs)


def watch(*models) -> None:
    """Changes to these models make every entry stale once they commit: a save or a
    delete through its signals, an update() through WatchedQuerySet, which each
    watched model's manager must use."""
    for model in models:
        if not isinstance(model._default_manager.get_queryset(), WatchedQuerySet):
            raise ImproperlyConfigured(f"{model._meta.label}: objects must be a WatchedQuerySet")
        uid = f"memo-{model._meta.label}"
        post_save.connect(_changed, sender=model, dispatch_uid=uid, weak=False)
        post_delete.connect(_changed, sender=model, dispatch_uid=uid, weak=False)


def _request_started(**kwargs):
    _generation.set(None)


request_started.connect(_request_started, dispatch_uid="paymentsvc-memo-generation")


class Memo:
    all: list["Memo"] = []

    def __init__(self, name: str, *, plain: bool = False):
        """`plain`: the values kept are immutable ones (a frozenset), given back as
        they are; else snapshot()s of model instances, rebuilt for each caller."""
        self.name = name
        self.plain = plain
        self._entries: dict = {}
        self._lock = threading.Lock()
        Memo.all.append(self)

    def get(self, key):
        """The rebuilt value for `key`, or None (not kept, stale, or no generation)."""
        generation = _generation.get()
        if generation is None:
            return None
        entry = self._entries.get(key)
        if entry is None:
            return None
        kept_under, born, value = entry
        if kept_under != generation or time.monotonic() - born > MAX_AGE:
            return None
        return value if self.plain else rebuild(value)

    def put(self, key, value) -> None:
        """Keep `value` (a snapshot) under the generation this request read."""
        generation = _generation.get()
        if generation is None:
            return
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[key] = (generation, time.monotonic(), value)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def snapshot(value):
    """A model instance (with the related instances it has loaded), a list or tuple of
    them, or None, as plain field values."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return (type(value), [snapshot(item) for item in value])
    related = {
        name: snapshot(other)
        for name, other in value._state.fields_cache.items()
        if other is not None and hasattr(other, "_meta")
    }
    fields = value._meta.concrete_fields
    values = tuple(getattr(value, f.attname) for f in fields)
    # Where a JSON field's list or dict sits: each caller gets a copy of those alone.
    mutable = tuple(k for k, item in enumerate(values) if isinstance(item, (list, dict)))
    return (value.__class__, values, related, mutable)


_ATTNAMES: dict = {}


def _loaded(model, values):
    """An instance as `model.from_db` makes it from a row of all its concrete fields, for a
    model nobody listens to the instance signals of: its state and its values put in
    place directly. `Model.__init__` set them one by one through each field's
    descriptor, which on a new instance (nothing cached on it yet) stores the value in
    the same place, and sent two signals with no receiver; a creation rebuilds a dozen
    kept rows (its key, terminal and methods)."""
    names = _ATTNAMES.get(model)
    if names is None:
        names = _ATTNAMES[model] = tuple(f.attname for f in model._meta.concrete_fields)
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model.from_db("default", names, values)
    obj = model.__new__(model)
    state = obj._state = ModelState()
    state.adding, state.db = False, "default"
    obj.__dict__.update(zip(names, values, strict=True))
    return obj


def rebuild(snap):
    if snap is None:
        return None
    if len(snap) == 2:
        kind, items = snap
        return kind(rebuild(item) for item in items)
    model, values, related, mutable = snap
    if mutable:
        values = list(values)
        for k in mutable:
            values[k] = copy.deepcopy(values[k])
    obj = _loaded(model, values)
    for name, other in related.items():
        obj._state.fields_cache[name] = rebuild(other)
    return obj
