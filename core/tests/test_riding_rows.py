"""Rows that ride (core.fast_insert.riding): an audit entry written in the statement of
the action's next row, and what that must keep of save()'s behaviour."""

import uuid

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit.models import AuditEntry
from core.fast_insert import insert_row
from core.riding import riding

pytestmark = pytest.mark.django_db

POSTGRES = connection.vendor == "postgresql"


def entry(n: int) -> AuditEntry:
    return AuditEntry(
        actor_kind="trader",
        actor_id=f"t-{n}",
        action="order.confirm",
        object_type="orders.order",
        object_id=f"o-{n}",
        changes={"status": ["Pending", "Completed"], "note": "б"},
    )


def event(event_id: str):
    from finance.tests.factories import TerminalFactory
    from webhooks.models import WebhookEvent

    return WebhookEvent(
        id=event_id,
        terminal=TerminalFactory(),
        order_id=uuid.uuid4(),
        type="order.completed",
        sequence=2,
        actor="trader",
        livemode=True,
        payload={"a": 1},
        body="{}",
        created_at=timezone.now(),
    )


def inserts(captured) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if "INSERT" in q["sql"]]


def test_riders_are_written_in_the_next_rows_statement_as_save_writes_them():
    from webhooks.models import WebhookEvent

    carrier = event("msg_" + "r" * 32)
    first, second, saved = entry(1), entry(2), entry(1)
    heard = []

    def hear(sender, instance, created, **kwargs):
        heard.append((instance.actor_id, instance.pk is not None, created))

    post_save.connect(hear, sender=AuditEntry, weak=False)
    try:
        with transaction.atomic(), CaptureQueriesContext(connection) as captured:
            with riding():
                insert_row(first, ride=True)
                insert_row(second, ride=True)
                if POSTGRES:  # waiting: nothing sent yet
                    assert first.pk is None and not heard
                insert_row(carrier)
    finally:
        post_save.disconnect(hear, sender=AuditEntry)
    assert heard == [("t-1", True, True), ("t-2", True, True)]  # as save() tells it
    saved.save()
    # one statement on PostgreSQL; each row at once where data-modifying WITHs are not
    assert len(inserts(captured)) == (1 if POSTGRES else 3)
    assert WebhookEvent.objects.filter(pk=carrier.pk).exists()
    assert first.pk is not None and second.pk is not None and first.pk != second.pk
    assert not first._state.adding and not carrier._state.adding
    fields = [f.attname for f in AuditEntry._meta.concrete_fields if f.attname != "id"]
    fields.remove("created_at")
    rows = {e.pk: AuditEntry.objects.filter(pk=e.pk).values(*fields).get() for e in (first, saved)}
    assert rows[first.pk] == rows[saved.pk]
    assert AuditEntry.objects.get(pk=second.pk).actor_id == "t-2"


def test_what_still_waits_at_the_blocks_end_is_sent_then():
    first, second = entry(1), entry(2)
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        with riding():
            insert_row(first, ride=True)
            insert_row(second, ride=True)
        assert first.pk is not None and second.pk is not None
    assert len(inserts(captured)) == (1 if POSTGRES else 2)
    assert AuditEntry.objects.filter(pk__in=[first.pk, second.pk]).count() == 2


def test_outside_a_block_a_rider_is_sent_at_once():
    alone = entry(1)
    insert_row(alone, ride=True)
    assert alone.pk is not None
    assert AuditEntry.objects.filter(pk=alone.pk).exists()


def test_a_rider_fails_with_its_carrier():
    """The carrier's error (a key already taken) is the rider's: neither is written."""
    taken = "msg_" + "t" * 32
    insert_row(event(taken))
    rider = entry(9)
    with pytest.raises(IntegrityError), transaction.atomic(), riding():
        insert_row(rider, ride=True)
        insert_row(event(taken))
    assert not AuditEntry.objects.filter(actor_id="t-9").exists()


def test_an_update_rides_and_a_key_no_row_has_still_raises():
    """update_row rides as insert_row does; when no row has the key, the error
    save(update_fields=...) raises comes when the statement carrying it is sent."""
    from django.db import DatabaseError

    from core.fast_insert import update_row
    from webhooks.models import WebhookEvent

    changed = event("msg_" + "c" * 32)
    insert_row(changed)
    changed.actor = "operator"
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        with riding():
            update_row(changed, ["actor"], ride=True)
            insert_row(entry(1))
    assert len(captured.captured_queries) == (1 if POSTGRES else 2)
    assert WebhookEvent.objects.get(pk=changed.pk).actor == "operator"
    ghost = event("msg_" + "g" * 32)
    with pytest.raises(DatabaseError), transaction.atomic(), riding():
        update_row(ghost, ["actor"], ride=True)
        insert_row(entry(2))
    assert not AuditEntry.objects.filter(actor_id="t-2").exists()


def gate_statement(held: bool) -> tuple[str, list]:
    """A carrier whose gate `g` returns a row only when `held`."""
    if POSTGRES:
        return "WITH g AS (SELECT 1 AS one WHERE %s) /*riders*/ SELECT (SELECT count(*) FROM g)", [
            held
        ]
    return "SELECT %s", [int(held)]


@pytest.mark.parametrize("held", [True, False])
def test_gated_riders_are_written_only_when_the_carriers_gate_holds(held):
    """In a gated block the waiting rows belong to the carrier's outcome: written in
    its statement (PostgreSQL) or released after it (SQLite) when its gate returned a
    row, with their keys and post_save; otherwise not written, and nothing heard."""
    from core.prepared import current
    from core.riding import release, send
    from webhooks.models import WebhookEvent

    numbered, preset = entry(7), event("msg_" + ("h" if held else "n") * 32)
    heard = []

    def hear(sender, instance, created, **kwargs):
        heard.append(instance.actor_id)

    sql, values = gate_statement(held)
    post_save.connect(hear, sender=AuditEntry, weak=False)
    try:
        with transaction.atomic(), CaptureQueriesContext(connection) as captured:
            with riding(gated=True):
                insert_row(numbered, ride=True)
                insert_row(preset, ride=True)
                assert numbered.pk is None and not heard  # waiting, on every database
                if POSTGRES:
                    (count,), _rows = send(current(), sql, values, returns=True, gate="g")
                else:
                    with connection.cursor() as cursor:
                        cursor.execute(sql, values)
                        (count,) = cursor.fetchone()
                    release(bool(count))
    finally:
        post_save.disconnect(hear, sender=AuditEntry)
    assert count == int(held)
    written = [q for q in captured.captured_queries if "INSERT" in q["sql"]]
    assert len(written) == (int(POSTGRES) if POSTGRES else 2 * int(held))
    assert WebhookEvent.objects.filter(pk=preset.pk).exists() is held
    assert AuditEntry.objects.filter(actor_id="t-7").exists() is held
    assert (numbered.pk is not None) is held
    assert heard == (["t-7"] if held else [])


@pytest.mark.skipif(not POSTGRES, reason="riders wait in a statement on PostgreSQL only")
def test_only_a_one_row_insert_waits_on_a_gate():
    from core.fast_insert import update_row
    from core.prepared import current
    from core.riding import send

    changed = event("msg_" + "u" * 32)
    insert_row(changed)
    changed.actor = "operator"
    sql, values = gate_statement(True)
    with pytest.raises(ValueError, match="one-row INSERT"), transaction.atomic():
        with riding(gated=True):
            update_row(changed, ["actor"], ride=True)
            send(current(), sql, values, returns=True, gate="g")


def test_a_gated_block_inside_another_leaves_the_outer_blocks_writes_to_it():
    """What an outer block holds is written whatever the inner gate says: it is sent
    when the gated block opens; the gated block's own write is dropped with its gate."""
    from core.prepared import current
    from core.riding import release, send

    outer, inner = entry(11), entry(12)
    sql, values = gate_statement(False)
    with transaction.atomic(), riding():
        insert_row(outer, ride=True)
        with riding(gated=True):
            assert outer.pk is not None  # sent as the gated block opened
            insert_row(inner, ride=True)
            if POSTGRES:
                send(current(), sql, values, returns=True, gate="g")
            else:
                release(False)
        assert inner.pk is None
    assert AuditEntry.objects.filter(actor_id="t-11").exists()
    assert not AuditEntry.objects.filter(actor_id="t-12").exists()
