"""Nobody edits or deletes the audit log: not the model, not the ORM's bulk paths, not
the admin, and on PostgreSQL not even raw SQL."""

import pytest
from django.conf import settings
from django.contrib import admin
from django.db import DatabaseError, connection, transaction

from audit.models import ActorKind, AuditEntry, AuditImmutable
from audit.services import ENTRY_COLUMNS, actor_parts, audit_record, scrub

POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
only_postgres = pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")


@pytest.fixture
def entry(db):
    return audit_record(actor_kind=ActorKind.SYSTEM, action="test.action", changes={"a": 1})


def test_an_entry_cannot_be_saved_again(entry):
    entry.action = "edited"
    with pytest.raises(AuditImmutable):
        entry.save()
    assert AuditEntry.objects.get(pk=entry.pk).action == "test.action"


def test_an_entry_cannot_be_deleted(entry):
    with pytest.raises(AuditImmutable):
        entry.delete()
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_the_querysets_bulk_paths_refuse(entry):
    with pytest.raises(AuditImmutable):
        AuditEntry.objects.filter(pk=entry.pk).update(action="edited")
    with pytest.raises(AuditImmutable):
        AuditEntry.objects.all().delete()
    with pytest.raises(AuditImmutable):
        AuditEntry.objects.bulk_update([entry], ["action"])
    assert AuditEntry.objects.get(pk=entry.pk).action == "test.action"


def test_the_admin_offers_no_edit_or_delete(entry):
    assert AuditEntry not in admin.site._registry


@pytest.mark.postgres
@only_postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE audit_auditentry SET action = 'edited' WHERE id = %s",
        "DELETE FROM audit_auditentry WHERE id = %s",
    ],
)
def test_the_trigger_refuses_raw_update_and_delete(entry, sql):
    with pytest.raises(DatabaseError, match="append-only"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [entry.pk])
    assert AuditEntry.objects.get(pk=entry.pk).action == "test.action"


@pytest.mark.postgres
@only_postgres
def test_the_trigger_lets_inserts_through(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO audit_auditentry (created_at, actor_kind, actor_id, client_address,"
            " action, object_type, object_id, changes)"
            " VALUES (now(), 'system', '', '', 'raw', '', '', '{}')"
        )
    assert AuditEntry.objects.filter(action="raw").count() == 1


def test_an_entry_never_holds_a_secret_or_a_full_card_number():
    changes = scrub(
        {
            "password": "hunter2-hunter2",
            "webhook_secret": "whsec_abcdefghijklmnop",
            "note": "signed with whsec_abcdefghijklmnop",
            "card": "2200 7001 1234 5670",
            "account": "22007001123456780",
            "nested": [{"api_key": "demo-shop-key", "raw_key": "x" * 20, "name": "kept"}],
            "phone": "+79990001122",
        }
    )
    assert changes == {
        "password": "[redacted]",
        "webhook_secret": "[redacted]",
        "note": "signed with whsec_[redacted]",
        "card": "220070******5670",
        "account": "220070*******6780",
        "nested": [{"api_key": "[redacted]", "raw_key": "[redacted]", "name": "kept"}],
        "phone": "+79990001122",
    }


def test_short_texts_keep_their_secrets_out_too():
    """The patterns are skipped only where they cannot match: a short text with a
    webhook secret's prefix is still cut, a 16-digit number still masked, and 15
    digits kept."""
    assert scrub({"n": "whsec_x", "card": "2200700112345670", "short": "220070011234567"}) == {
        "n": "whsec_[redacted]",
        "card": "220070******5670",
        "short": "220070011234567",
    }


def test_an_entry_is_made_with_its_fields_in_their_order():
    """audit_record passes the fields by position, in ENTRY_COLUMNS' order."""
    assert tuple(f.attname for f in AuditEntry._meta.concrete_fields) == ENTRY_COLUMNS


@pytest.mark.parametrize(
    ("actor", "parts"),
    [
        ("trader:42", ("trader", "42")),
        ("merchant:abc", ("merchant", "abc")),
        ("device:d1", ("device", "d1")),
        ("operator:ann", ("operator", "ann")),
        ("ann", ("operator", "ann")),
        ("expiry", ("system", "")),
    ],
)
def test_actor_strings_become_kind_and_id(actor, parts):
    assert actor_parts(actor) == parts


def test_an_unknown_actor_kind_is_refused(db):
    with pytest.raises(ValueError):
        audit_record(actor_kind="payer", action="x")


def test_any_value_is_kept_as_json(db):
    from decimal import Decimal

    from django.core.files.base import ContentFile

    entry = audit_record(
        actor_kind=ActorKind.SYSTEM,
        action="x",
        changes={"amount": Decimal("1.50"), "file": ContentFile(b"x", name="a.pdf")},
    )
    entry.refresh_from_db()
    assert entry.changes["amount"] == "1.50" and isinstance(entry.changes["file"], str)


def test_changes_are_kept_as_json_would_write_them():
    """One walk gives what a round trip through JSON (Django's encoder) gives: Django's
    types as their text, tuples as lists, keys as JSON writes them, choices as values."""
    import datetime
    import json
    import uuid
    from decimal import Decimal

    from django.core.serializers.json import DjangoJSONEncoder
    from django.utils.translation import gettext_lazy

    from orders.models import OrderStatus

    changes = {
        "amount": Decimal("1.50"),
        "id": uuid.UUID("0f0e0d0c-0b0a-4908-8706-a5a4a3a2a1a0"),
        "at": datetime.datetime(2026, 11, 26, 15, 0, 1, 123456, tzinfo=datetime.UTC),
        "day": datetime.date(2026, 11, 26),
        "status": (OrderStatus.PENDING, OrderStatus.COMPLETED),
        "label": gettext_lazy("Pending"),
        1: "one",
        2.5: [True, None, 3, 4.25],
        False: {"nested": (1, (2, "x"))},
        None: "none",
    }
    expected = json.loads(json.dumps(changes, cls=DjangoJSONEncoder))
    plain = scrub(changes)
    assert plain == expected
    assert json.dumps(plain, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert all(type(v) is str for v in plain["status"])


@pytest.mark.postgres
@only_postgres
def test_the_log_keeps_one_index_on_action_and_no_pattern_copy(db):
    """Each entry written pays for every index: the action, compared with `=` only, has
    its plain index and not the `varchar_pattern_ops` copy db_index would add."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'audit_auditentry'"
            " AND indexdef LIKE %s",
            ["%(action%"],
        )
        on_action = [row[0] for row in cursor.fetchall()]
    assert len(on_action) == 1 and "pattern_ops" not in on_action[0]
