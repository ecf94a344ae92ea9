"""Idempotency-Key for the POSTs that create things (docs/responses.md#headers)."""

import fcntl
import hashlib
import json
import os
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.http import HttpResponse
from django.utils import timezone
from rest_framework.response import Response

from .error_codes import ErrorCode
from .errors import ServiceError, api_exception_handler, error_response
from .models import IdempotencyRecord
from .renderers import JSONRenderer

HEADER = "HTTP_IDEMPOTENCY_KEY"


class KeyLock:
    """Held for the life of the request that owns a key, by something that dies with
    it: on PostgreSQL a session advisory lock of the request's connection (freed when
    the process or its connection dies, on every machine); on SQLite, whose database
    is one machine's file, an flock on a per-key file (freed by the OS when the
    process dies). A repeat that can take the lock knows the owner is gone."""

    def __init__(self, scope: str, key: str):
        digest = hashlib.sha256(f"{scope}\n{key}".encode()).digest()
        self.number = int.from_bytes(digest[:8], "big", signed=True)
        self.name = digest.hex()[:32]
        self._fd = None

    def acquire(self) -> bool:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_lock(%s)", [self.number])
                return bool(cursor.fetchone()[0])
        directory = Path(settings.VAR_DIR) / "idempotency-locks"
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(directory / self.name, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [self.number])
        elif self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


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


def _claim(*, scope: str, key: str, fingerprint: str, lock: KeyLock):
    """(record, None) when this request now owns the key (and holds `lock`); (None,
    response) when the key answers for itself (replay, 422, 409)."""
    for _attempt in range(3):
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(
                    scope=scope, key=key, fingerprint=fingerprint
                )
            if not lock.acquire():
                # A request that took the record over a moment ago holds it.
                IdempotencyRecord.objects.filter(pk=record.pk, in_flight=True).delete()
                return None, _in_flight()
            return record, None
        except IntegrityError:
            record = IdempotencyRecord.objects.filter(scope=scope, key=key).first()
        if record is None:
            # The first request failed and removed its record after our insert
            # collided with it: the key is free again.
            continue
        ttl = timedelta(seconds=settings.IDEMPOTENCY_TTL_SECONDS)
        if record.created_at <= timezone.now() - ttl:
            # Older than 24 hours: never replayed, whether or not the purge has run.
            IdempotencyRecord.objects.filter(pk=record.pk, created_at=record.created_at).delete()
            continue
        if record.fingerprint != fingerprint:
            return None, error_response(ErrorCode.IDEMPOTENCY_KEY_REUSED)
        if not record.in_flight:
            replay = HttpResponse(
                bytes(record.body), status=record.status_code, content_type="application/json"
            )
            replay["Idempotent-Replayed"] = "true"
            return None, replay
        # The first request's work and its stored response commit together, so a
        # record in flight whose owner's lock is free belongs to a request that died
        # before committing anything: taking it over cannot do the work twice.
        if not lock.acquire():
            return None, _in_flight()
        taken = IdempotencyRecord.objects.filter(pk=record.pk, created_at=record.created_at).update(
            created_at=timezone.now()
        )
        if taken:
            return record, None
        lock.release()
        return None, _in_flight()
    return None, _in_flight()


def idempotent(request, view, handler) -> HttpResponse:
    """Run `handler` (returning a DRF Response) at most once per Idempotency-Key."""
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

    lock = KeyLock(scope, key)
    record, answer = _claim(scope=scope, key=key, fingerprint=fingerprint, lock=lock)
    if answer is not None:
        return answer

    try:
        with transaction.atomic():
            response = _run(request, view, handler)
            IdempotencyRecord.objects.filter(pk=record.pk).update(
                in_flight=False, status_code=response.status_code, body=response.content
            )
    except BaseException:
        IdempotencyRecord.objects.filter(pk=record.pk, in_flight=True).delete()
        raise
    finally:
        lock.release()
    return response


def purge_expired(ttl_seconds: int) -> int:
    cutoff = timezone.now() - timedelta(seconds=ttl_seconds)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
