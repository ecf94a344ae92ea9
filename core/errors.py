"""The error contract: every failure under /api/ is
{"success": false, "message": ..., "code": ...} (+ "errors" for validation).

Services raise `ServiceError` subclasses carrying a code; the DRF exception handler
below is the one place that turns them (and DRF's own exceptions) into responses,
with the status and default message the catalogue (error_codes.py) gives the code.
"""

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response

from .error_codes import ErrorCode, message_for, status_for

logger = logging.getLogger(__name__)


class ServiceError(Exception):
    """A domain error: it carries a code; the status and the default message come
    from the catalogue (error_codes.py)."""

    code: ErrorCode = ErrorCode.BAD_REQUEST

    def __init__(self, message: str | None = None, *, code: ErrorCode | None = None, errors=None):
        if code:
            self.code = code
        self.message = message or message_for(self.code)
        self.errors = errors
        super().__init__(self.message)

    @property
    def status(self) -> int:
        return status_for(self.code)


class InvalidRequest(ServiceError):
    code = ErrorCode.VALIDATION_ERROR


class NotFound(ServiceError):
    code = ErrorCode.NOT_FOUND


class Forbidden(ServiceError):
    code = ErrorCode.FORBIDDEN


class Conflict(ServiceError):
    code = ErrorCode.CONFLICT


class InsufficientFunds(ServiceError):
    code = ErrorCode.INSUFFICIENT_FUNDS


class TooManyRequests(ServiceError):
    code = ErrorCode.TOO_MANY_REQUESTS


class NoAvailableTraders(ServiceError):
    code = ErrorCode.NO_AVAILABLE_TRADERS
    clock = None  # the matcher's: the database's time its walk read the requisites


def error_body(message: str, code: str, errors=None) -> dict:
    body = {"success": False, "message": message, "code": str(code)}
    if errors:
        body["errors"] = errors
    return body


def error_response(
    code: ErrorCode, message: str | None = None, *, errors=None, status: int | None = None
) -> JsonResponse:
    """An error answered outside DRF's handler; the status is the code's unless given."""
    return JsonResponse(
        error_body(message or message_for(code), code, errors),
        status=status or status_for(code),
    )


def _flatten(detail, prefix=""):
    """DRF's nested ValidationError detail -> {"field.sub": ["text", ...]}."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            # A list's items (DRF keys them by index) and a nested object's own
            # errors are reported under the field itself.
            if prefix and (key == "non_field_errors" or isinstance(key, int)):
                name = prefix
            out.update(_flatten(value, name))
    elif isinstance(detail, list):
        texts = []
        for i, item in enumerate(detail):
            if isinstance(item, dict | list) and not all(isinstance(x, str) for x in item):
                out.update(_flatten(item, f"{prefix}[{i}]" if prefix else str(i)))
            else:
                texts.append(str(item))
        if texts:
            out.setdefault(prefix or "non_field_errors", []).extend(texts)
    else:
        out.setdefault(prefix or "non_field_errors", []).append(str(detail))
    return out


def _validation_message(errors: dict[str, list[str]]) -> str:
    field, texts = next(iter(errors.items()))
    if field == "non_field_errors":
        return texts[0]
    return f"Invalid {field}: {texts[0]}"


def api_exception_handler(exc, context):
    headers = {}
    if isinstance(exc, ServiceError):
        return Response(error_body(exc.message, exc.code, exc.errors), status=exc.status)
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = drf.PermissionDenied()
    if not isinstance(exc, drf.APIException):
        return None  # a real bug: let the middleware answer 500 and log it

    status = exc.status_code
    if isinstance(exc, drf.ValidationError):
        errors = _flatten(exc.detail)
        return Response(
            error_body(_validation_message(errors), ErrorCode.VALIDATION_ERROR, errors),
            status=status_for(ErrorCode.VALIDATION_ERROR),
        )
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        message, code = str(exc.detail), exc.get_codes()
        headers["WWW-Authenticate"] = "X-API-Key"
    elif isinstance(exc, drf.Throttled):
        wait = int(exc.wait or 1)
        limited = exc.default_code == ErrorCode.AUTH_RATE_LIMITED
        code = ErrorCode.AUTH_RATE_LIMITED if limited else ErrorCode.RATE_LIMITED
        message = f"{message_for(code)}. Retry in {wait} seconds"
        headers["Retry-After"] = str(wait)
    elif isinstance(exc, drf.MethodNotAllowed):
        message, code = str(exc.detail), ErrorCode.METHOD_NOT_ALLOWED
    elif isinstance(exc, drf.ParseError):
        message, code = str(exc.detail), ErrorCode.MALFORMED_REQUEST
    elif isinstance(exc, drf.UnsupportedMediaType):
        message, code = str(exc.detail), ErrorCode.UNSUPPORTED_MEDIA_TYPE
    elif isinstance(exc, drf.NotFound):
        code = ErrorCode.NOT_FOUND
        message = message_for(code)
    else:
        message = str(exc.detail) if not isinstance(exc.detail, dict | list) else exc.default_detail
        code = exc.default_code
    if not isinstance(code, str):
        code = exc.default_code
    return Response(error_body(message, code), status=status, headers=headers)
