"""Idempotency-Key for the POSTs that create things (docs/responses.md#headers)."""

import functools
import hashlib
import json
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.http import HttpResponse
from django.utils import timezone
from rest_framework.response import Response

from .error_codes import ErrorCode
from .errors import ServiceError, api_exception_handler, error_response
from .models import IdempotencyRecord
from .prepared import prepared_cursor
from .renderers import JSONRenderer

HEADER = "HTTP_IDEMPOTENCY_KEY"


_TABLE = IdempotencyRecord._meta.db_table
_INSERT = (
    f'INSERT INTO "{_TABLE}" ("scope", "key", "fingerprint", "created_at")'
    ' {rows} ON CONFLICT ("scope", "key") DO NOTHING RETURNING "id"'
)
# PostgreSQL: the key's lock and the record's INSERT in one statement, the INSERT only
# with the lock taken (the lock is read first: the INSERT reads its row).
_LOCK_AND_INSERT = (
    "WITH l AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(%s) AS got),"
    f" i AS ({_INSERT.format(rows='SELECT %s, %s, %s, %s FROM l WHERE l.got')})"
    " SELECT l.got, (SELECT id FROM i) FROM l"
)
_ANSWER = f'UPDATE "{_TABLE}" SET "status_code" = %s, "body" = %s WHERE "id" = %s'


def _lock_key(scope: str, key: str) -> int:
    digest = hashlib.sha256(f"idempotency\n{scope}\n{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _record_values(scope: str, key: str, fingerprint: str) -> list:
    created_at = IdempotencyRecord._meta.get_field("created_at").get_db_prep_value(
        timezone.now(), connection
    )
    return [scope, key, fingerprint, created_at]


def _lock_and_insert(*, scope: str, key: str, fingerprint: str) -> tuple[bool, int | None]:
    """Take the key's lock for the rest of the current transaction and, with it, INSERT
    the key's record unless it exists: (whether the lock was taken, the record's id
    when this request inserted it). Not taken when another request's transaction holds
    it (that request is making the key's resource now).

    PostgreSQL: a transaction-scoped advisory lock, freed at commit or rollback, or
    when the connection dies, and never left behind on a pooled server connection
    (PgBouncer in transaction mode); taken in the INSERT's statement. SQLite: every
    write transaction holds the database's write lock from BEGIN (IMMEDIATE mode), so
    one key's requests already run one after another and the later ones find the
    stored answer."""
    if connection.vendor != "postgresql":
        return True, _insert(scope=scope, key=key, fingerprint=fingerprint)
    with prepared_cursor() as cursor:
        cursor.execute(
            _LOCK_AND_INSERT, [_lock_key(scope, key), *_record_values(scope, key, fingerprint)]
        )
        got, record_id = cursor.fetchone()
    return bool(got), record_id


def _insert(*, scope: str, key: str, fingerprint: str) -> int | None:
    """INSERT the key's record unless it exists: the one statement that decides the
    key's owner. Its id when this request inserted it, else None."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _INSERT.format(rows="VALUES (%s, %s, %s, %s)"),
            _record_values(scope, key, fingerprint),
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _answer_store(record_id: int, response: HttpResponse) -> None:
    body = IdempotencyRecord._meta.get_field("body").get_db_prep_value(response.content, connection)
    with prepared_cursor() as cursor:
        cursor.execute(_ANSWER, [response.status_code, body, record_id])


def _fingerprint(request) -> str:
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    content_type = request.content_type or ""
    if content_type.startswith("multipart/"):
        for name in sorted(request.POST.keys()):
            digest.update(f"{name}={request.POST.getlist(name)!r}\n".encode())
        for name in sorted(request.FILES.keys()):
            for upload in request.FILES.getlist(name):
                digest.update(f"{name}:{upload.name}:{upload.size}:".encode())
                for chunk in upload.chunks():
                    digest.update(chunk)
                upload.seek(0)
    else:
        try:
            parsed = json.loads(request.body or b"null")
            digest.update(json.dumps(parsed, sort_keys=True, separators=(",", ":")).encode())
        except (ValueError, RecursionError):
            # Not JSON, or nested too deeply to read: the parser answers 400 for it.
            digest.update(request.body)
    return digest.hexdigest()


def _render(response: Response) -> HttpResponse:
    content = JSONRenderer().render(response.data)
    out = HttpResponse(content, status=response.status_code, content_type="application/json")
    for name, value in response.items():
        if name.lower() not in ("content-type", "content-length"):
            out[name] = value
    return out


def _run(request, view, handler) -> HttpResponse:
    try:
        response = handler()
    except (ServiceError, Exception) as exc:  # noqa: B014 - ServiceError listed for readers
        response = api_exception_handler(exc, {"request": request, "view": view})
        if response is None:
            raise
    return _render(response)


def _in_flight() -> HttpResponse:
    return error_response(ErrorCode.IDEMPOTENCY_IN_FLIGHT)


def _claim(*, scope: str, key: str, fingerprint: str, inserted: int | None):
    """(record id, None) when this request now owns the key; (None, response) when the
    key answers for itself (replay, 422). Runs in the owner's transaction, holding the
    key's lock; `inserted`: the first INSERT's answer (_lock_and_insert)."""
    for attempt in range(3):
        record_id = (
            inserted if attempt == 0 else _insert(scope=scope, key=key, fingerprint=fingerprint)
        )
        if record_id is not None:
            return record_id, None
        record = IdempotencyRecord.objects.filter(scope=scope, key=key).first()
        if record is None:
            continue  # the purge removed it between the two statements
        ttl = timedelta(seconds=settings.IDEMPOTENCY_TTL_SECONDS)
        if record.status_code is None or record.created_at <= timezone.now() - ttl:
            # Older than 24 hours: never replayed, whether or not the purge has run.
            # Without an answer: left by a request of an earlier release that died.
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
            continue
        if record.fingerprint != fingerprint:
            return None, error_response(ErrorCode.IDEMPOTENCY_KEY_REUSED)
        replay = HttpResponse(
            bytes(record.body), status=record.status_code, content_type="application/json"
        )
        replay["Idempotent-Replayed"] = "true"
        return None, replay
    return None, _in_flight()


def idempotent(request, view, handler) -> HttpResponse:
    """Run `handler` (returning a DRF Response) at most once per Idempotency-Key.

    One transaction holds the whole of it: the key's lock, the record that makes this
    request the key's owner, the handler's work and the answer stored for repeats. No
    other request ever sees the record before its answer, and a request that fails or
    dies leaves nothing behind. Any view that creates something gets this by calling
    it (or by the `idempotent_post` decorator)."""
    key = request.META.get(HEADER)
    if key is None:
        return _run(request, view, handler)
    if not 1 <= len(key) <= 255:
        return error_response(
            ErrorCode.VALIDATION_ERROR,
            "Idempotency-Key must be 1 to 255 characters",
            errors={"Idempotency-Key": ["Must be 1 to 255 characters"]},
        )
    principal = request.user
    scope = (
        f"terminal:{principal.terminal.pk}"
        if principal.terminal
        else f"trader:{principal.trader.pk}"
    )
    fingerprint = _fingerprint(request)

    with transaction.atomic():
        locked, inserted = _lock_and_insert(scope=scope, key=key, fingerprint=fingerprint)
        if not locked:
            return _in_flight()
        record_id, answer = _claim(scope=scope, key=key, fingerprint=fingerprint, inserted=inserted)
        if answer is not None:
            return answer
        response = _run(request, view, handler)
        _answer_store(record_id, response)
    return response


def idempotent_post(method):
    """Decorate an APIView's `post` so that it runs through `idempotent`."""

    @functools.wraps(method)
    def post(self, request, *args, **kwargs):
        return idempotent(request, self, lambda: method(self, request, *args, **kwargs))

    return post


def purge_expired(ttl_seconds: int) -> int:
    cutoff = timezone.now() - timedelta(seconds=ttl_seconds)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
