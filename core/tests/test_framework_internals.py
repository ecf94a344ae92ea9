"""The speed shortcuts that lean on Django, DRF or psycopg internals, each kept in one
small module, and what they lean on.

Each internal a shortcut relies on is fingerprinted (its source text): when a new
release changes one, `test_the_internals_are_the_ones_checked` fails and names the
module to re-check; once that module is right for the new code (its behaviour tests
below pass), record the new fingerprint here. The behaviour tests compare each
shortcut with the framework's own way on the same input.
"""

import hashlib
import importlib
import inspect
import uuid
from decimal import Decimal

import pytest
from django.db import DataError, connection, transaction
from django.utils import timezone
from rest_framework import serializers

from core import memo, prepared, sql_rows
from core.fast_insert import insert_row, insert_rows, insert_unless_held, update_row
from core.kept_fields import KeptFieldsSerializer
from demo.testing import buy_body

# dotted path -> (the module that relies on it, fingerprint of its source)
FINGERPRINTS = {
    # core/kept_fields.py: lends a serializer's fields to the next instance.
    "rest_framework.serializers.Serializer.fields": ("core/kept_fields.py", "96006b9bed0aeef1"),
    "rest_framework.serializers.Serializer.get_fields": ("core/kept_fields.py", "42aab36390bd6a8e"),
    "rest_framework.utils.serializer_helpers.BindingDict": (
        "core/kept_fields.py",
        "24dd83a61fadbe2e",
    ),
    "rest_framework.fields.Field.bind": ("core/kept_fields.py", "bd69e99fcd08a40b"),
    # core/fast_insert.py: an INSERT as save(force_insert=True) writes it.
    "django.db.models.base.Model.save_base": ("core/fast_insert.py", "8dfb6c7b18b4cece"),
    "django.db.models.base.Model._save_table": ("core/fast_insert.py", "2a39268c21f5b8e6"),
    "django.db.models.base.Model._do_insert": ("core/fast_insert.py", "7fc7e9ecbfc33991"),
    "django.db.models.fields.Field.pre_save": ("core/fast_insert.py", "09aa95090848d096"),
    "django.db.models.fields.Field.get_db_prep_save": ("core/fast_insert.py", "b095edabbe2f53fc"),
    # core/fast_insert.py: a str in a CharField or a TextField is its own parameter.
    "django.db.models.fields.Field.get_db_prep_value": ("core/fast_insert.py", "00c11e761b7faa6a"),
    "django.db.models.fields.Field.get_prep_value": ("core/fast_insert.py", "7aa16ded6e6eb1fb"),
    "django.db.models.fields.CharField.get_prep_value": ("core/fast_insert.py", "6d31653d6fa8b8da"),
    "django.db.models.fields.CharField.to_python": ("core/fast_insert.py", "1bd5528c714ebfc5"),
    "django.db.models.fields.TextField.get_prep_value": ("core/fast_insert.py", "6d31653d6fa8b8da"),
    "django.db.models.fields.TextField.to_python": ("core/fast_insert.py", "1bd5528c714ebfc5"),
    # core/fast_insert.py: insert_unless_held's statement, built as save() builds it.
    "django.db.models.sql.subqueries.InsertQuery.insert_values": (
        "core/fast_insert.py",
        "c1a5f2f916964c6e",
    ),
    "django.db.models.sql.compiler.SQLInsertCompiler.as_sql": (
        "core/fast_insert.py",
        "497ecc56a0916746",
    ),
    # core/fast_insert.py: a statement of a shape seen before reuses its text and
    # computes each plain value's parameter as the compiler does for one field.
    "django.db.models.sql.compiler.SQLInsertCompiler.prepare_value": (
        "core/fast_insert.py",
        "2e49a07e78afaae1",
    ),
    "django.db.models.sql.compiler.SQLInsertCompiler.field_as_sql": (
        "core/fast_insert.py",
        "505120b18cf35c28",
    ),
    "django.db.models.expressions.Expression.identity": ("core/fast_insert.py", "bc2309137660fb94"),
    "django.db.models.constraints.UniqueConstraint._get_condition_sql": (
        "core/fast_insert.py",
        "8bb55776c567b197",
    ),
    # core/sql_rows.py: the compiler's converters.
    "django.db.models.sql.compiler.SQLCompiler.setup_query": (
        "core/sql_rows.py",
        "a426aa7c0cfa3024",
    ),
    "django.db.models.sql.compiler.SQLCompiler.get_converters": (
        "core/sql_rows.py",
        "c6c8c1b71882ee8b",
    ),
    "django.db.models.sql.compiler.SQLCompiler.apply_converters": (
        "core/sql_rows.py",
        "c034ce3e5090aa2e",
    ),
    # core/prepared.py: a cursor opened as connection.cursor() opens one, of the
    # backend's server-binding class, asking psycopg to prepare each statement.
    "django.db.backends.base.base.BaseDatabaseWrapper._cursor": (
        "core/prepared.py",
        "bb632516d005185c",
    ),
    "django.db.backends.base.base.BaseDatabaseWrapper._prepare_cursor": (
        "core/prepared.py",
        "92079d0eed95d59d",
    ),
    "django.db.backends.base.base.BaseDatabaseWrapper.queries_logged": (
        "core/prepared.py",
        "d26da937d4e8595c",
    ),
    "django.db.backends.postgresql.base.DatabaseWrapper.create_cursor": (
        "core/prepared.py and core/timestamps.py",
        "5309d92ffca3e871",
    ),
    "django.db.backends.postgresql.base.DatabaseWrapper.get_connection_params": (
        "core/prepared.py",
        "c3b08b880d604ccb",
    ),
    "psycopg._preparing.PrepareManager.get": ("core/prepared.py", "92bd487924222918"),
    # core/prepared.py: a prepared run's text, for Django's query log (DEBUG).
    "psycopg._cursor_base.BaseCursor._maybe_prepare_gen": ("core/prepared.py", "86dc8e74d068ef76"),
    # core/prepared.py: psycopg keeps the placeholders' conversion of texts within its
    # two module bounds, which it reads on every run.
    "psycopg._queries.PostgresQuery.convert": ("core/prepared.py", "6238407fdceabf0b"),
    # core/timestamps.py: Django's timestamptz loader (what ours must read alike), the
    # session's time zone set before connection_created is sent, and the Python loader
    # ours is shaped as.
    "django.db.backends.postgresql.psycopg_any.BaseTzLoader": (
        "core/timestamps.py",
        "54da5c943c5192bc",
    ),
    "django.db.backends.postgresql.psycopg_any.register_tzloader": (
        "core/timestamps.py",
        "b98320a954840389",
    ),
    "django.db.backends.postgresql.base.DatabaseWrapper.ensure_timezone": (
        "core/timestamps.py",
        "5ad919fdceceeee2",
    ),
    "django.db.backends.base.base.BaseDatabaseWrapper.connect": (
        "core/timestamps.py",
        "65ad70c3f9c2250f",
    ),
    "psycopg.types.datetime.TimestamptzLoader.__init__": (
        "core/timestamps.py",
        "d96c210f6ad81420",
    ),
    # core/connection_checks.py: Django's health check flag, reset at each request.
    "django.db.backends.base.base.BaseDatabaseWrapper.close_if_health_check_failed": (
        "core/connection_checks.py",
        "f72eb45356f4a910",
    ),
    "django.db.backends.base.base.BaseDatabaseWrapper.close_if_unusable_or_obsolete": (
        "core/connection_checks.py",
        "9e0690a760eb710d",
    ),
    "django.db.close_old_connections": ("core/connection_checks.py", "c352dd45e8333c97"),
    # core/choice_dumpers.py: psycopg probes a value's exact class first, and walks its
    # bases (keeping nothing) only when that misses.
    "psycopg._adapters_map.AdaptersMap.get_dumper": ("core/choice_dumpers.py", "ad5b8633a746be73"),
    # core/memo.py (kept rows as field values, rebuilt as instances) and
    # core/sql_rows.py (instances from a written-out row).
    "django.db.models.base.Model.from_db": ("core/memo.py", "eba347895d11fa79"),
    "django.db.models.base.ModelStateFieldsCacheDescriptor": ("core/memo.py", "08e53b8b852f566f"),
    # core/memo.py: a kept row rebuilt without Model.__init__, its values stored where
    # __init__ and the fields' descriptors store them on a new instance.
    "django.db.models.base.Model.__init__": ("core/memo.py", "2950c3a90d8343b5"),
    "django.db.models.base.ModelState": ("core/memo.py", "1c36c15dcbfdd1a9"),
    "django.db.models.fields.related_descriptors.ForeignKeyDeferredAttribute": (
        "core/memo.py",
        "fd81c3fe552aed4a",
    ),
}


def _resolve(path: str):
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = inspect.getattr_static(found, name)
        return getattr(found, "func", getattr(found, "fget", found))
    raise ImportError(path)


def fingerprint(path: str) -> str:
    source = inspect.getsource(_resolve(path))
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def test_the_internals_are_the_ones_checked():
    changed = [
        f"{path} changed: re-check {module} (now {fingerprint(path)})"
        for path, (module, recorded) in FINGERPRINTS.items()
        if fingerprint(path) != recorded
    ]
    assert not changed, "\n".join(changed)


class _Body(serializers.Serializer):
    amount = serializers.DecimalField(max_digits=12, decimal_places=2)
    side = serializers.ChoiceField(choices=["Buy", "Sell"])
    note = serializers.CharField(required=False, max_length=5)

    def validate(self, attrs):
        if attrs.get("note") == "bad":
            raise serializers.ValidationError({"note": ["Not that"]})
        return attrs


class _KeptBody(KeptFieldsSerializer, _Body):
    pass


@pytest.mark.parametrize(
    "data",
    [
        {"amount": "10.50", "side": "Buy"},
        {"amount": "10.505", "side": "Buy"},
        {"amount": "1", "side": "Neither", "note": "toolong"},
        {"amount": "3", "side": "Sell", "note": "bad"},
        {},
    ],
)
def test_a_kept_serializer_validates_as_a_plain_one(data):
    for _ in range(2):  # the second instance borrows the first one's fields
        kept, plain = _KeptBody(data=data), _Body(data=data)
        assert kept.is_valid() == plain.is_valid()
        assert kept.errors == plain.errors
        assert dict(kept.validated_data if not kept.errors else {}) == dict(
            plain.validated_data if not plain.errors else {}
        )
        assert all(field.parent is kept for field in kept.fields.values())
        assert kept.fields.serializer is kept


@pytest.mark.django_db
def test_insert_row_writes_what_save_writes():
    from finance.tests.factories import TerminalFactory
    from webhooks.models import WebhookEvent

    terminal = TerminalFactory()
    order_id, now = uuid.uuid4(), timezone.now()

    def event(event_id: str) -> WebhookEvent:
        return WebhookEvent(
            id=event_id,
            terminal=terminal,
            order_id=order_id,
            type="order.created",
            sequence=1,
            actor="merchant",
            livemode=True,
            payload={"a": [1, "б"]},
            body="{}",
            created_at=now,
        )

    insert_row(event("msg_" + "a" * 32))
    event("msg_" + "b" * 32).save(force_insert=True)
    # several rows in one statement, as bulk_create writes them
    insert_rows([event("msg_" + c * 32) for c in "cd"])
    WebhookEvent.objects.bulk_create([event("msg_" + c * 32) for c in "ef"])
    fields = [f.attname for f in WebhookEvent._meta.concrete_fields if f.attname != "id"]
    fast, saved, *more = (
        WebhookEvent.objects.filter(pk="msg_" + c * 32).values(*fields).get() for c in "abcdef"
    )
    assert fast == saved
    assert more == [saved] * 4


@pytest.mark.django_db
def test_a_rows_parameters_are_the_fields_own():
    """Each parameter insert_row sends is what the field's get_db_prep_save gives, the
    plain texts taken as they are among them (a choice, a str subclass, goes through
    the field)."""
    from audit.models import AuditEntry
    from core.fast_insert import _params
    from orders.models import OrderStatus

    entry = AuditEntry(
        actor_kind="trader",
        actor_id="42",
        action="order.confirm",
        object_type="orders.order",
        object_id=OrderStatus.PENDING,
        changes={"status": ["Pending", "Completed"]},
    )
    fields = [f for f in AuditEntry._meta.local_concrete_fields if not f.primary_key]
    expected = [f.get_db_prep_save(f.pre_save(entry, True), connection) for f in fields]
    got = _params(entry, fields, connection)
    assert [type(v) for v in got] == [type(v) for v in expected]
    assert [getattr(v, "obj", v) for v in got] == [getattr(v, "obj", v) for v in expected]


@pytest.mark.django_db
def test_update_row_writes_what_save_writes():
    """Two orders closed alike, one through update_row, one through save(update_fields):
    the same row (updated_at stamped by either, as auto_now does) and the same
    post_save; a key no row has raises as save() raises."""
    from django.db import DatabaseError
    from django.db.models.signals import post_save

    from orders.models import Order
    from orders.services.lifecycle import CLOSE_FIELDS

    fast, saved = _an_order(), _an_order(client_order_id="rows-2")
    stamped_before = fast.updated_at
    for order in (fast, saved):
        order.status, order.paid_amount, order.trader_reward = "Completed", Decimal("999.99"), 1
        order.closed_at, order.closed_by, order.event_sequence = timezone.now(), "test", 7
    heard = []

    def hear(sender, instance, created, update_fields, **kwargs):
        heard.append((sender, instance.pk, created, update_fields))

    post_save.connect(hear, sender=Order, weak=False)
    try:
        update_row(fast, CLOSE_FIELDS)
        saved.save(update_fields=CLOSE_FIELDS)
    finally:
        post_save.disconnect(hear, sender=Order)
    assert heard == [(Order, o.pk, False, frozenset(CLOSE_FIELDS)) for o in (fast, saved)]
    assert fast.updated_at > stamped_before
    skip = {"id", "client_order_id", "created_at", "updated_at", "closed_at", "expires_at"}
    skip |= {"terminal_id", "method_id", "initial_method_id"}  # each order its own
    fields = [f.attname for f in Order._meta.concrete_fields if f.attname not in skip]
    rows = [Order.objects.filter(pk=o.pk).values(*fields).get() for o in (fast, saved)]
    assert rows[0] == rows[1]
    assert rows[0]["status"] == "Completed" and rows[0]["event_sequence"] == 7
    fresh = Order.objects.get(pk=fast.pk)
    assert (fresh.updated_at, fresh.closed_at) == (fast.updated_at, fast.closed_at)
    fast.pk = uuid.uuid4()
    with pytest.raises(DatabaseError):
        update_row(fast, CLOSE_FIELDS)


@pytest.mark.django_db
def test_insert_row_numbers_a_row_as_save_does():
    from audit.models import AuditEntry

    def entry() -> AuditEntry:
        return AuditEntry(
            actor_kind="trader",
            actor_id="t-1",
            action="order.confirm",
            object_type="orders.order",
            object_id="o-1",
            changes={"amount": ["1.00", "2.00"], "note": "б"},
        )

    fast, saved = entry(), entry()
    insert_row(fast)
    saved.save()
    assert fast.pk is not None and not fast._state.adding
    assert saved.pk == fast.pk + 1
    fields = [
        f.attname for f in AuditEntry._meta.concrete_fields if f.attname not in ("id", "created_at")
    ]
    rows = [AuditEntry.objects.filter(pk=e.pk).values(*fields).get() for e in (fast, saved)]
    assert rows[0] == rows[1]
    assert AuditEntry.objects.get(pk=fast.pk).created_at == fast.created_at


@pytest.mark.django_db
def test_insert_unless_held_writes_what_save_writes():
    from finance.tests.factories import TerminalFactory
    from orders.models import Order
    from orders.services.matching import SLOT_CONSTRAINT
    from orders.tests.factories import RequisiteFactory, buy_order, rewarded_method

    method = rewarded_method()
    RequisiteFactory(method=method)
    shop = TerminalFactory(methods=[method])
    template = buy_order(terminal=shop, method=method, amount="700.00")
    values = {f.attname: getattr(template, f.attname) for f in Order._meta.concrete_fields}
    skip = {"id", "amount", "created_at", "expires_at", "updated_at", "reserve_id"}
    fast = Order(**{**values, "id": uuid.uuid4(), "amount": Decimal("701.00")})
    saved = Order(**{**values, "id": uuid.uuid4(), "amount": Decimal("702.00")})
    assert insert_unless_held(fast, held_by=SLOT_CONSTRAINT)
    saved.save(force_insert=True)
    # the values the database computes are read back onto the object, as save() does
    assert (
        fast.created_at is not None and fast.created_at == Order.objects.get(pk=fast.pk).created_at
    )
    # a second row of the same shape reuses the statement's text (its own values bound)
    again = Order(**{**values, "id": uuid.uuid4(), "amount": Decimal("703.00")})
    assert insert_unless_held(again, held_by=SLOT_CONSTRAINT)
    assert again.created_at == Order.objects.get(pk=again.pk).created_at
    fields = [f.attname for f in Order._meta.concrete_fields if f.attname not in skip]
    rows = [Order.objects.filter(pk=o.pk).values(*fields).get() for o in (fast, saved, again)]
    assert rows[0] == rows[1] == rows[2]
    assert [Order.objects.get(pk=o.pk).amount for o in (fast, saved, again)] == [
        Decimal("701.00"),
        Decimal("702.00"),
        Decimal("703.00"),
    ]
    # held: the same (requisite, amount) again is skipped, on the reused statement too
    held = Order(**{**values, "id": uuid.uuid4(), "amount": Decimal("703.00")})
    assert not insert_unless_held(held, held_by=SLOT_CONSTRAINT)
    assert not Order.objects.filter(pk=held.pk).exists()


def _an_order(**fields):
    """An order written straight through the ORM, with its own terminal and method."""
    from finance.tests.factories import PaymentMethodFactory, TerminalFactory
    from orders.models import Order

    method = PaymentMethodFactory()
    fields.setdefault("client_order_id", "rows")
    return Order.objects.create(
        terminal=TerminalFactory(),
        side="Buy",
        method=method,
        initial_method=method,
        requested_amount=Decimal("1000.00"),
        amount=Decimal("1000.00"),
        fee=Decimal("5.00"),
        fee_amount=Decimal("50.00"),
        **fields,
    )


@pytest.mark.django_db
def test_converted_rows_are_the_orms():
    from orders.models import Order
    from orders.render import OrderRow

    _an_order()
    columns = [c for c in OrderRow.COLUMNS if c != "db_clock"]
    orm = list(Order.objects.values_list(*columns))
    query = Order.objects.values_list(*columns)
    sql, params = query.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        raw = cursor.fetchall()
    assert sql_rows.convert(raw, sql_rows.converters_for(query)) == orm


@pytest.mark.django_db
def test_models_read_from_a_written_out_row_are_the_orms():
    """Every field of an order, its terminal and a device (UUIDs, decimals, dates,
    JSON, booleans, empty values) as the ORM reads them, on either database."""
    from core.db import DbNow, db_now_sql
    from finance.models import Terminal
    from orders.models import Order
    from orders.tests.factories import RequisiteFactory, TraderFactory
    from traders.devices import device_add
    from traders.models import Device

    order = _an_order(webhook_url="https://shop.example/hook")
    terminal = order.terminal
    trader = TraderFactory()
    device_add(trader=trader, name="Pixel", requisites=[RequisiteFactory(trader=trader)])
    for model, pk in ((Order, order.pk), (Terminal, terminal.pk), (Device, None)):
        orm = model.objects.get(pk=pk) if pk else model.objects.get()
        sql = f"SELECT {sql_rows.columns(model, 'x')} FROM {model._meta.db_table} x WHERE x.id = %s"
        with connection.cursor() as cursor:
            cursor.execute(sql, [model._meta.pk.get_db_prep_value(orm.pk, connection)])
            built = sql_rows.from_row(model, cursor.fetchone())
        fields = model._meta.concrete_fields
        assert [getattr(built, f.attname) for f in fields] == [
            getattr(orm, f.attname) for f in fields
        ]
        assert (built._state.adding, built._state.db) == (False, "default")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {db_now_sql()}", [])
        now = sql_rows.convert_value(DbNow(), cursor.fetchone()[0])
    assert abs(now - timezone.now()).total_seconds() < 60


@pytest.mark.django_db
def test_a_kept_row_is_rebuilt_as_it_was_read():
    from finance.models import FeeRange
    from finance.tests.factories import PaymentMethodFactory

    method = PaymentMethodFactory()
    ranges = list(FeeRange.objects.select_related("method").filter(method=method))
    again = memo.rebuild(memo.snapshot(ranges))
    fields = FeeRange._meta.concrete_fields
    assert [(r.pk, r.min_amount, r.method.name) for r in again] == [
        (r.pk, r.min_amount, r.method.name) for r in ranges
    ]
    assert all(r._state.adding is False and r._state.db == "default" for r in again)
    # as Django itself builds them from the same values: the same state and attributes
    for built, read in zip(again, ranges, strict=True):
        made = FeeRange.from_db("default", [], [getattr(read, f.attname) for f in fields])
        assert {k: v for k, v in vars(built).items() if k != "_state"} == {
            k: v for k, v in vars(made).items() if k != "_state"
        }
        assert vars(built._state) | {"fields_cache": None} == (
            vars(made._state) | {"fields_cache": None}
        )
        built.min_amount = read.min_amount + 1  # and saved as an existing row
        built.save(update_fields=["min_amount"])
        assert FeeRange.objects.get(pk=read.pk).min_amount == read.min_amount + 1


@pytest.mark.django_db
def test_a_prepared_cursor_reads_what_djangos_reads_and_is_planned_once():
    """The same rows as Django's own cursor; on PostgreSQL the statement is prepared on
    the connection and, after its first runs, run on the one generic plan it keeps."""
    from finance.tests.factories import TerminalFactory

    terminals = [TerminalFactory() for _ in range(3)]
    sql = "SELECT id, name, created_at FROM finance_terminal WHERE id IN (%s, %s) ORDER BY id"
    key = terminals[0]._meta.pk
    params = [key.get_db_prep_value(t.pk, connection) for t in (terminals[0], terminals[2])]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        plain = cursor.fetchall()
    for _ in range(8):
        with prepared.prepared_cursor() as cursor:
            cursor.execute(sql, params)
            assert cursor.fetchall() == plain
    assert len(plain) == 2
    if not prepared.preparing():
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            ["SELECT id, name, created_at FROM finance_terminal WHERE id IN ($1, $2)%"],
        )
        ((generic, custom),) = cursor.fetchall()
    assert custom + generic == 8
    assert generic >= 1


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's prepared statements")
def test_statements_are_prepared_with_debug_on_and_not_while_a_test_captures_them(settings):
    """DEBUG (make run's demo) prepares them as production does, its query log showing
    a prepared statement's placeholders; a test capturing statements gets them
    unprepared, each with its values."""
    from django.test.utils import CaptureQueriesContext

    settings.DEBUG = True
    sql = "SELECT %s::int + 1 AS debug_probe"
    assert prepared.preparing()
    with prepared.prepared_cursor() as cursor:
        cursor.execute(sql, [41])
        assert cursor.fetchone() == (42,)
    assert connection.queries[-1]["sql"] == "SELECT $1::int + 1 AS debug_probe"
    with CaptureQueriesContext(connection) as captured:
        assert not prepared.preparing()
        with prepared.prepared_cursor() as cursor:
            cursor.execute(sql, [1])
            assert cursor.fetchone() == (2,)
    assert captured.captured_queries[-1]["sql"] == "SELECT 1::int + 1 AS debug_probe"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement = %s",
            ["SELECT $1::int + 1 AS debug_probe"],
        )
        assert cursor.fetchone() == (1,)


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_a_prepared_statements_plan_is_made_again_for_a_table_that_grew(monkeypatch):
    """A statement prepared while its table was analyzed small keeps its sequential
    scan however far the table grows until ANALYZE; once its plans are PLANS_MAX_AGE
    old, the next run plans it again, on the table's present size (an index probe)."""
    assert prepared.preparing()
    # Plans kept for an hour until the end: the connection's count of their age began
    # with an earlier test, and a slow machine once took longer than PLANS_MAX_AGE
    # between the two looks that must see the same plan.
    monkeypatch.setattr(prepared, "PLANS_MAX_AGE", 3600.0)
    sql = "SELECT b FROM plan_probe WHERE a = %s"

    def plan() -> str:
        with prepared.prepared_cursor() as cursor:
            cursor.execute(sql, [7])
            assert cursor.fetchall() == [(7,)]
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT name FROM pg_prepared_statements WHERE statement = %s",
                ["SELECT b FROM plan_probe WHERE a = $1"],
            )
            ((name,),) = cursor.fetchall()
            cursor.execute(f"EXPLAIN EXECUTE {name}(7)")
            return " ".join(row[0] for row in cursor.fetchall())

    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE plan_probe (a int, b int)")
        cursor.execute("INSERT INTO plan_probe SELECT g, g FROM generate_series(1, 50) g")
        cursor.execute("CREATE INDEX ON plan_probe (a)")
        cursor.execute("ANALYZE plan_probe")
        # The plan a prepared statement keeps after its first runs, from the first.
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
    assert "Seq Scan" in plan()
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO plan_probe SELECT g, g FROM generate_series(51, 100000) g")
    assert "Seq Scan" in plan()  # within PLANS_MAX_AGE: the plan it had
    # Once its plans are PLANS_MAX_AGE old, the next run plans it again.
    monkeypatch.setattr(prepared, "PLANS_MAX_AGE", 0.0)
    assert "Index Scan" in plan()


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's conversion")
def test_a_long_statement_with_many_parameters_is_converted_once():
    """psycopg keeps the placeholders' conversion of a statement as long, and with as
    many parameters, as a creation's write (beyond its own bounds of 4,096 characters
    and 50 parameters), and the statement reads the same."""
    import psycopg._queries

    count = 120
    columns = ", ".join(f"%s::int AS c{n}" for n in range(count))
    sql = f"SELECT {columns} /* {'x' * 5000} */"
    before = psycopg._queries._query2pg.cache_info()
    for _ in range(3):
        with prepared.prepared_cursor() as cursor:
            cursor.execute(sql, list(range(count)))
            assert cursor.fetchone() == tuple(range(count))
    after = psycopg._queries._query2pg.cache_info()
    assert after.hits - before.hits >= 2


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's dumpers")
def test_a_choice_is_dumped_by_its_base_types_dumper_found_at_once():
    """Every choices class of the service has its base type's dumper (for each format)
    on a connection's adapters, in the exact-class table psycopg probes first, and a
    member is sent as the text or number it is."""
    from django.db import models
    from psycopg.adapt import PyFormat

    from core.choice_dumpers import _subclasses
    from finance.models import TransactionType
    from orders.models import OrderStatus

    connection.ensure_connection()
    adapters = connection.connection.adapters
    choices = [(str, c) for c in _subclasses(models.TextChoices)]
    choices += [(int, c) for c in _subclasses(models.IntegerChoices)]
    assert {OrderStatus, TransactionType} <= {c for _base, c in choices}
    for base, cls in choices:
        for fmt in PyFormat:
            assert adapters._dumpers[fmt][cls] is adapters.get_dumper(base, fmt), (cls, fmt)
    with prepared.prepared_cursor() as cursor:
        cursor.execute("SELECT %s::text, %s::int", [OrderStatus.PENDING, 7])
        assert cursor.fetchone() == ("Pending", 7)


TIMESTAMPS = [
    "2026-12-06 20:48:48.403535+00",
    "2001-02-03 04:05:06.789+03",  # another offset: the same instant, read in UTC
    "1900-01-01 00:00:00+00",
    "1969-12-31 23:59:59.999999+00",
    "9999-12-31 23:59:59.999999+00",
]


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's loaders")
def test_timestamps_are_read_by_the_compiled_loader_as_djangos_reads_them(demo, shop):
    """A connection reads timestamptz through core.timestamps' loader (Django's shape,
    psycopg's C loader underneath), and each value, with its tzinfo, is what Django's
    own loader reads; an ORM read gets the same. A value no loader can read (infinity)
    is refused by both alike."""
    from datetime import UTC

    import psycopg
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg.pq import Format

    from core import timestamps
    from orders.models import Order

    connection.ensure_connection()
    oid = psycopg.adapters.types["timestamptz"].oid
    ours = connection.connection.adapters.get_loader(oid, Format.TEXT)
    assert ours is timestamps._LOADER[0] and ours is not None
    assert ours.timezone is connection.timezone  # Django registers nothing per cursor
    select = "SELECT " + ", ".join(f"'{text}'::timestamptz" for text in TIMESTAMPS) + ", NULL"
    with connection.cursor() as cursor:
        cursor.execute(select)
        read = cursor.fetchone()
        djangos = connection.connection.cursor()
        register_tzloader(UTC, djangos)  # Django's own loader, on this cursor alone
        assert djangos.adapters.get_loader(oid, Format.TEXT) is not ours
        djangos.execute(select)
        expected = djangos.fetchone()
    assert read == expected
    assert all(value.tzinfo is UTC for value in read[:-1] + expected[:-1])
    made = shop.post("/api/v1/order/", buy_body(demo, client_order_id="stamp"))
    assert made.status_code == 201, made.content
    order = Order.objects.get(pk=made.json()["id"])
    assert order.created_at.tzinfo is UTC and order.expires_at.tzinfo is UTC
    shown = made.json()["created_at"]
    assert order.created_at.isoformat(timespec="microseconds")[:-6] + "Z" == shown
    # A value no loader reads (infinity, after year 10K) is refused by both alike.
    for way in (connection.cursor(), djangos):
        with (
            pytest.raises((DataError, psycopg.DataError), match="after year 10K"),
            transaction.atomic(),
        ):
            way.execute("SELECT 'infinity'::timestamptz")
            way.fetchone()
