"""The error contract: every failure under /api/ is
{"success": false, "message": ..., "code": ...} (+ "errors" for validation).

Services raise `ServiceError` subclasses; the DRF exception handler below is the one
place that turns them (and DRF's own exceptions) into responses.
"""

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response

logger = logging.getLogger(__name__)


class ServiceError(Exception):
    status = 400
    code = "bad_request"
    message = "Bad request"

    def __init__(self, message: str | None = None, *, code: str | None = None, errors=None):
        self.message = message or self.message
        if code:
            self.code = code
        self.errors = errors
        super().__init__(self.message)


class InvalidRequest(ServiceError):
    status = 400
    code = "validation_error"
    message = "Invalid request"


class NotFound(ServiceError):
    status = 404
    code = "not_found"
    message = "Not found"


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"
    message = "Forbidden"


class Conflict(ServiceError):
    status = 409
    code = "conflict"
    message = "Conflict"


class InsufficientFunds(ServiceError):
    status = 402
    code = "insufficient_funds"
    message = "Insufficient funds"


class TooManyRequests(ServiceError):
    status = 429
    code = "too_many_requests"
    message = "Too many requests"


class NoAvailableTraders(ServiceError):
    status = 500
    code = "no_available_traders"
    message = "No available traders that match order requirements"


def error_body(status: int, message: str, code: str, errors=None) -> dict:
    body = {"success": False, "message": message, "code": code}
    if errors:
        body["errors"] = errors
    return body


def error_response(status: int, message: str, code: str, errors=None) -> JsonResponse:
    return JsonResponse(error_body(status, message, code, errors), status=status)


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
        body = error_body(exc.status, exc.message, exc.code, exc.errors)
        return Response(body, status=exc.status)
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
            error_body(400, _validation_message(errors), "validation_error", errors), status=400
        )
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        message, code = str(exc.detail), exc.get_codes()
        headers["WWW-Authenticate"] = "X-API-Key"
    elif isinstance(exc, drf.Throttled):
        wait = int(exc.wait or 1)
        message, code = f"Request rate limit exceeded. Retry in {wait} seconds", "rate_limited"
        headers["Retry-After"] = str(wait)
    elif isinstance(exc, drf.MethodNotAllowed):
        message, code = str(exc.detail), "method_not_allowed"
    elif isinstance(exc, drf.ParseError):
        message, code = str(exc.detail), "malformed_request"
    elif isinstance(exc, drf.UnsupportedMediaType):
        message, code = str(exc.detail), "unsupported_media_type"
    elif isinstance(exc, drf.NotFound):
        message, code = "Not found", "not_found"
    else:
        message = str(exc.detail) if not isinstance(exc.detail, dict | list) else exc.default_detail
        code = exc.default_code
    if not isinstance(code, str):
        code = exc.default_code
    return Response(error_body(status, message, code), status=status, headers=headers)
