"""Statements PostgreSQL plans once per connection.

Django binds parameters on the client, so PostgreSQL parses and plans every statement
afresh. For most statements that costs little; for the matcher's slice (a UNION of
joins with a probe per amount) planning took three times as long as running it, on
every creation. A statement run through `prepared_cursor` is bound on the server and
prepared once per connection (psycopg keeps the names); after its first few runs
PostgreSQL keeps a generic plan and each later run only executes it.

Only hand-written statements go through it, each with a fixed text per shape (the
values always parameters), so a connection holds a handful of them. Behind PgBouncer
in transaction mode (`PGBOUNCER_TRANSACTION_MODE`) a connection is not ours from one
transaction to the next and nothing is prepared; on SQLite neither, nor while a test
captures the statements. With DEBUG on (`make run`'s demo) they are prepared as in
production: a demo's creation was 8% slower unprepared, and in DEBUG's query log
(`connection.queries`) a prepared statement reads with its placeholders ($1, $2)
where its values would be.

It leans on Django internals (how `connection.cursor()` opens and wraps a cursor, and
the psycopg backend's server-binding cursor), fingerprinted in
core/tests/test_framework_internals.py beside a test that the statement is prepared.

Before it sends a statement psycopg turns its `%s` placeholders into `$n`, and keeps
that conversion for the next run only for a text of at most 4,096 characters with at
most 50 parameters. A creation's write has some seventy, so it was converted afresh
every time (py-spy: 4% of a creation's samples). `CONVERSIONS_KEPT` raises both
bounds (psycopg's own LRU of 128 conversions still bounds what is kept): our hand-
written statements are a handful of texts, run on every request.

PostgreSQL keeps a prepared statement's generic plan until the statistics of its tables
change, and they change when (auto)ANALYZE runs, which can be a minute or more behind a
table that grows fast from small. A slice planned when the orders table had been
analyzed at sixty rows probed "holds this amount" with a sequential scan, and kept
doing so while the table grew to thousands: PostgreSQL's CPU per creation went from
2.1 to 5.9 ms in thirty seconds of creations on a new database. Planned again, a
statement is costed on its tables' present size (their last statistics scaled to the
pages they have now), so every `PLANS_MAX_AGE` seconds a connection's plans are dropped
(`DISCARD PLANS`: the statements stay prepared, each is planned again at its next run).
"""

import functools
import time
from contextlib import contextmanager

import psycopg._queries
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DataError, connections

# (characters, parameters): the statements whose placeholder conversion psycopg keeps.
CONVERSIONS_KEPT = (16_384, 256)
psycopg._queries.MAX_CACHED_STATEMENT_LENGTH = max(
    psycopg._queries.MAX_CACHED_STATEMENT_LENGTH, CONVERSIONS_KEPT[0]
)
psycopg._queries.MAX_CACHED_STATEMENT_PARAMS = max(
    psycopg._queries.MAX_CACHED_STATEMENT_PARAMS, CONVERSIONS_KEPT[1]
)


# How long a connection keeps the plans of its prepared statements (see above): one
# more statement, and each statement planned once more, in that time.
PLANS_MAX_AGE = 5.0


def current():
    """The default database's connection of this thread, looked up once: each
    attribute read through `django.db.connection` (a proxy) looks it up again, and a
    row written field by field reads a dozen of them."""
    return connections[DEFAULT_DB_ALIAS]


def preparing(db=None) -> bool:
    """Whether statements are prepared on this connection now: on PostgreSQL, unless a
    test is capturing its statements (`CaptureQueriesContext`, `assertNumQueries`),
    which it reads with their values (psycopg keeps no text of a prepared run)."""
    db = db or current()
    return (
        db.vendor == "postgresql" and settings.DB_PREPARED_STATEMENTS and not db.force_debug_cursor
    )


@functools.cache
def preparing_cursor_class():
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        """Django's server-binding cursor whose every statement is prepared."""

        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True, binary=binary)

        def _maybe_prepare_gen(self, pgq, *, prepare=None, binary=None):
            # psycopg records the statement it sends (what Django's query log reads,
            # with DEBUG on) only when it sends it unprepared: a prepared run is
            # logged as its text, with its placeholders.
            self._query = pgq
            return super()._maybe_prepare_gen(pgq, prepare=prepare, binary=binary)

    return PreparingCursor


def prepared_cursor(db=None):
    """A cursor (Django's wrapper, with its execute wrappers and query logging) whose
    statements PostgreSQL prepares; Django's own cursor where nothing is prepared.
    `db`: the connection, when the caller has looked it up already."""
    db = db or current()
    if not preparing(db):
        return db.cursor()
    # As connection.cursor() opens one, with another cursor class.
    db.close_if_health_check_failed()
    db.ensure_connection()
    with db.wrap_database_errors:
        _plans_kept_fresh(db)
        return db._prepare_cursor(preparing_cursor_class()(db.connection))


def _plans_kept_fresh(db) -> None:
    """Drop the connection's plans once they are PLANS_MAX_AGE old (a connection made
    since the last look starts its count afresh)."""
    now = time.monotonic()
    made = getattr(db, "plans_made", None)
    if made is None or made[0] is not db.connection:
        db.plans_made = (db.connection, now)
    elif now - made[1] >= PLANS_MAX_AGE:
        db.connection.execute("DISCARD PLANS")
        db.plans_made = (db.connection, now)


def opaque(sql_type: str, vendor: str | None = None) -> str:
    """The placeholder of a value the planner should not look into: on PostgreSQL a
    scalar subquery of it (`(SELECT %s::bigint)`), elsewhere `%s`.

    A prepared statement's first runs are planned with their values, and PostgreSQL
    keeps the generic plan (made without them) only if it does not look dearer than
    those. Where one value moves the estimates a lot (a LIMIT's size, a method with
    fewer requisites than the average) every plan made with the values looks cheaper,
    and the statement is planned afresh on every run. Read through a subquery, the
    value is the same unknown to both plans: the costs agree and the generic plan is
    kept. Only for values that do not change the plan's shape. `vendor`: the
    database's, when the caller builds text for a connection other than the current."""
    vendor = vendor or current().vendor
    return f"(SELECT %s::{sql_type})" if vendor == "postgresql" else "%s"


# What a statement that ends its transaction (`pipelined(commit=True)`,
# `statement_alone`) divides by zero to refuse itself: nothing else in such a
# statement divides.
DIVISION_BY_ZERO = "22012"


class NotCommittedAhead(Exception):
    """A statement that was to end its transaction (`pipelined(commit=True)`,
    `statement_alone`) refused itself: nothing was committed (a transaction block is
    left to be rolled back), and the caller takes the action again the usual way."""


@contextmanager
def pipelined(db=None, *, commit: bool = False):
    """The statements run in the block go to PostgreSQL in one round trip (psycopg's
    pipeline; a BEGIN not sent yet goes with them). Their errors come when the block
    ends, Django's, as from any statement; the cursors' results are read after it.

    `commit`: the transaction's COMMIT is queued behind them, so it ends in that same
    round trip. Only for a caller that opened the outermost transaction itself and
    writes nothing after the block; Django's COMMIT at the end of its `atomic` then
    finds nothing to commit (psycopg's sends none outside a transaction) and runs its
    on_commit callbacks as usual. A statement that must not be committed refuses
    itself by a division by zero (a value that divides by the product of its
    changes' row counts, say), which fails it before the COMMIT behind it runs:
    `NotCommittedAhead` is raised, and the transaction is left to be rolled back."""
    db = db or current()
    with _refusal_raised(commit=commit), db.wrap_database_errors, db.connection.pipeline():
        yield
        if commit:  # psycopg's commit() would add a Sync and a round trip of its own
            db.connection.execute("COMMIT", prepare=False)


@contextmanager
def statement_alone(db=None):
    """The statement run in the block (PostgreSQL, outside any transaction block) is a
    transaction of its own: PostgreSQL commits it as it ends, with no BEGIN or COMMIT
    sent (two round trips). One that must not be written refuses itself by a division
    by zero, which undoes all of it: `NotCommittedAhead` is raised, nothing written."""
    db = db or current()
    if db.in_atomic_block:
        raise RuntimeError("a statement alone runs outside any transaction block")
    with _refusal_raised(commit=True), db.wrap_database_errors:
        yield


@contextmanager
def _refusal_raised(*, commit: bool):
    """A statement's division by zero as `NotCommittedAhead`, where it refuses itself."""
    try:
        yield
    except DataError as error:
        if commit and getattr(error.__cause__, "sqlstate", None) == DIVISION_BY_ZERO:
            raise NotCommittedAhead from error
        raise
