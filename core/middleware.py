import logging

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.db import DatabaseError
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

from .error_codes import ErrorCode
from .errors import error_response

logger = logging.getLogger("core.errors")


class ApiErrorMiddleware:
    """No HTML error page under /api/, whatever fails and whatever DEBUG says."""

    def __init__(self, get_response):
        self.get_response = get_response

    # What an error status says when something outside our views (CSRF, the schema
    # views' own negotiation) answered it with a page of its own.
    TEXTS = {
        403: ErrorCode.FORBIDDEN,
        404: ErrorCode.NOT_FOUND,
        405: ErrorCode.METHOD_NOT_ALLOWED,
        406: ErrorCode.NOT_ACCEPTABLE,
    }

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and request.path.startswith("/api/")
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            code = self.TEXTS.get(response.status_code, ErrorCode.ERROR)
            replacement = error_response(code, status=response.status_code)
            if response.has_header("Allow"):
                replacement["Allow"] = response["Allow"]
            return replacement
        return response

    def process_exception(self, request, exception):
        if not request.path.startswith("/api/"):
            return None
        if isinstance(exception, SuspiciousOperation):
            return error_response(ErrorCode.MALFORMED_REQUEST, f"Malformed request: {exception}")
        logger.exception("Unhandled error on %s %s", request.method, request.path)

        if isinstance(exception, DatabaseError):
            return error_response(ErrorCode.SERVICE_UNAVAILABLE)
        return error_response(ErrorCode.INTERNAL_ERROR)


class SecurityHeadersMiddleware:
    """Headers Django does not set itself: a strict CSP for pages, no caching of API data."""

    CSP = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    )

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        path = request.path
        if path.startswith("/api/"):
            response.setdefault("Cache-Control", "no-store")
            if not path.startswith("/api/docs"):
                response.setdefault(
                    "Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"
                )
        elif not path.startswith(("/admin/", settings.STATIC_URL)):
            response.setdefault("Content-Security-Policy", self.CSP)
        response.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        response.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        return response


class PageLocaleMiddleware(LocaleMiddleware):
    """Django's language negotiation for pages (the admin in Russian for an operator
    whose browser asks for it); the API's messages stay English for every client."""

    def process_request(self, request):
        if request.path.startswith("/api/"):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = settings.LANGUAGE_CODE
            return
        super().process_request(request)

    def process_response(self, request, response):
        if request.path.startswith("/api/"):
            return response
        return super().process_response(request, response)
