"""Timestamps read from PostgreSQL by psycopg's compiled loader.

With USE_TZ, Django's PostgreSQL backend reads every `timestamptz` value through a
loader of its own (`psycopg_any.BaseTzLoader`): psycopg's pure-Python loader, whose
result then has its tzinfo set to the connection's time zone. It takes the place of
the C loader psycopg-binary registers, and parses each value in Python: 3.2 us a value
on this project's machine against 0.2 us. An order has four; a close's match reads six
with its terminal and the database's clock.

Our connections' session time zone is UTC (Django sets it to `connection.timezone`,
UTC here), and the C loader returns a UTC value with `datetime.timezone.utc` as its
tzinfo, which is what Django's loader returns: so where both are UTC, the connection
reads timestamps through a loader of Django's shape (a `timezone` attribute, which
Django compares at every cursor it opens) that hands each value to the C loader. On
any other time zone, or without psycopg's C extension, Django's own loader stays.

It leans on Django's backend (`create_cursor`'s check of the loader's `timezone`, the
loader it registers) and psycopg's loaders, fingerprinted in
core/tests/test_framework_internals.py beside a test that it reads what Django's
loader reads.
"""

from datetime import UTC

from django.db.backends.signals import connection_created


def _compiled_loader():
    """psycopg's C loader of `timestamptz` text, or None without the C extension."""
    import psycopg
    from psycopg.pq import Format
    from psycopg.types.datetime import TimestamptzLoader

    loader = psycopg.adapters.get_loader(psycopg.adapters.types["timestamptz"].oid, Format.TEXT)
    if loader is None or issubclass(loader, TimestamptzLoader):
        return None  # pure-Python psycopg: nothing faster to hand values to
    return loader


def loader_class():
    """The loader registered on UTC connections (None where there is nothing faster)."""
    compiled = _compiled_loader()
    if compiled is None:
        return None
    from psycopg.types.datetime import TimestamptzLoader

    class UtcTimestamptzLoader(TimestamptzLoader):
        """Django's loader's shape (its `timezone`), psycopg's C loader's speed."""

        timezone = UTC

        def __init__(self, oid, context=None):
            super().__init__(oid, context)
            self.load = compiled(oid, context).load

    return UtcTimestamptzLoader


# The loader registered on UTC connections, once `connect` found one faster.
_LOADER: list = []


def _register(sender, connection, **kwargs) -> None:
    if connection.vendor != "postgresql" or connection.timezone != UTC:
        return
    if connection.connection.info.parameter_status("TimeZone") == "UTC":
        connection.connection.adapters.register_loader("timestamptz", _LOADER[0])


def connect() -> None:
    """From CoreConfig.ready: each new PostgreSQL connection reads timestamps so, where
    psycopg's C extension is there to read them."""
    try:
        loader = loader_class()
    except ImportError:  # the SQLite-only install has no psycopg
        return
    if loader is not None:
        _LOADER[:] = [loader]
        connection_created.connect(_register, dispatch_uid="core.timestamps.register")
