"""Nobody edits or deletes the audit log: not the model, not the ORM's bulk paths, not
the admin, and on PostgreSQL not even raw SQL."""

import pytest
from django.conf import settings
from django.contrib import admin
from django.db import DatabaseError, connection, transaction

from audit.models import ActorKind, AuditEntry, AuditImmutable
from audit.services import actor_parts, audit_record, scrub

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
