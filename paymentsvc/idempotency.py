"""Idempotency-Key for the POSTs that create things (decisions §6b)."""

import hashlib
import json
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from .error_codes import ErrorCode
from .errors import ServiceError, api_exception_handler, error_response
from .models import IdempotencyRecord

HEADER = "HTTP_IDEMPOTENCY_KEY"
STALE_AFTER = timedelta(minutes=2)


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
        except ValueError:
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

    try:
        with transaction.atomic():
            record = IdempotencyRecord.objects.create(scope=scope, key=key, fingerprint=fingerprint)
    except IntegrityError:
        record = IdempotencyRecord.objects.get(scope=scope, key=key)
        if record.fingerprint != fingerprint:
            return error_response(ErrorCode.IDEMPOTENCY_KEY_REUSED)
        if not record.in_flight:
            replay = HttpResponse(
                bytes(record.body), status=record.status_code, content_type="application/json"
            )
            replay["Idempotent-Replayed"] = "true"
            return replay
        # The first request's work and its stored response commit together, so a
        # record still in flight long after it began belongs to a request that died
        # before committing anything: taking it over cannot do the work twice.
        if record.created_at > timezone.now() - STALE_AFTER:
            return error_response(ErrorCode.IDEMPOTENCY_IN_FLIGHT)
        taken = IdempotencyRecord.objects.filter(pk=record.pk, created_at=record.created_at).update(
            created_at=timezone.now()
        )
        if not taken:
            return error_response(ErrorCode.IDEMPOTENCY_IN_FLIGHT)

    try:
        with transaction.atomic():
            response = _run(request, view, handler)
            IdempotencyRecord.objects.filter(pk=record.pk).update(
                in_flight=False, status_code=response.status_code, body=response.content
            )
    except BaseException:
        IdempotencyRecord.objects.filter(pk=record.pk, in_flight=True).delete()
        raise
    return response


def purge_expired(ttl_seconds: int) -> int:
    cutoff = timezone.now() - timedelta(seconds=ttl_seconds)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
