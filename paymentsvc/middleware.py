import logging

from django.conf import settings

from .errors import error_response
from .formats import querydict_holds_nul

logger = logging.getLogger("paymentsvc.errors")


class ApiErrorMiddleware:
    """No HTML error page under /api/, whatever fails and whatever DEBUG says."""

    def __init__(self, get_response):
        self.get_response = get_response

    # What an error status says when something outside our views (CSRF, the schema
    # views' own negotiation) answered it with a page of its own.
    TEXTS = {
        403: ("Forbidden", "forbidden"),
        404: ("Not found", "not_found"),
        405: ("Method not allowed", "method_not_allowed"),
        406: ("Not acceptable", "not_acceptable"),
    }

    def __call__(self, request):
        if request.path.startswith("/api/") and querydict_holds_nul(request.GET):
            # The database cannot hold a NUL; no query reaches it with one.
            return error_response(
                400, "Malformed request: NUL characters are not accepted", "malformed_request"
            )
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and request.path.startswith("/api/")
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            message, code = self.TEXTS.get(response.status_code, ("Request failed", "error"))
            replacement = error_response(response.status_code, message, code)
            if response.has_header("Allow"):
                replacement["Allow"] = response["Allow"]
            return replacement
        return response

    def process_exception(self, request, exception):
        if not request.path.startswith("/api/"):
            return None
        from django.core.exceptions import SuspiciousOperation
        from django.db import DatabaseError

        if isinstance(exception, SuspiciousOperation):
            return error_response(400, f"Malformed request: {exception}", "malformed_request")
        logger.exception("Unhandled error on %s %s", request.method, request.path)

        if isinstance(exception, DatabaseError):
            return error_response(
                503, "Service temporarily unavailable, try again", "service_unavailable"
            )
        return error_response(500, "Internal server error", "internal_error")


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
