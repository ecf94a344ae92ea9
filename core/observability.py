"""The outermost middleware: every response carries `X-Request-ID`, every request is
one JSON access line and one count in the HTTP metrics.

It sits first in MIDDLEWARE so that answers given before any view runs (static
files, HTTPS redirects, errors) are counted and carry the id too. The work per request
is a clock, a context variable and two in-memory metric updates: no query, no lock
that requests share beyond prometheus_client's own (a few microseconds).
"""

import logging
import time

from django.conf import settings
from django.core.signals import request_finished

from . import logs, metrics

access_logger = logging.getLogger("paymentsvc.access")

HEADER = "X-Request-ID"


def route_of(request) -> str:
    """The URL pattern that answered, never the raw path: ids must not become labels."""
    match = getattr(request, "resolver_match", None)
    if match is not None and match.route:
        return "/" + match.route.lstrip("^").removesuffix("$")
    if request.path.startswith(settings.STATIC_URL):
        return "static"
    return "unmatched"


class RequestObservabilityMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def process_view(self, request, view_func, view_args, view_kwargs):
        # Known from here on: the view's own log lines say which route they are on.
        logs.bind(route=route_of(request))

    def __call__(self, request):
        started = time.perf_counter()
        request_id = logs.request_id_from(request.META.get("HTTP_X_REQUEST_ID"))
        request.request_id = request_id
        # Ended by request_finished, not here: Django logs 4xx/5xx responses
        # (django.request) after the middleware has returned, and those lines belong
        # to the request too.
        logs.context_start(request_id=request_id)
        response = self.get_response(request)
        duration = time.perf_counter() - started
        route = route_of(request)
        logs.bind(route=route)
        response[HEADER] = request_id
        metrics.http_request_observed(
            method=request.method,
            route=route,
            status=response.status_code,
            seconds=duration,
        )
        access_logger.info(
            "%s %s %s",
            request.method,
            route,
            response.status_code,
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round(duration * 1000, 1),
            },
        )
        return response


def _request_finished(**kwargs):
    logs.context_clear()


request_finished.connect(_request_finished, dispatch_uid="paymentsvc-log-context")
