"""Prometheus metrics (docs/operations.md): the metric objects, the one-line helpers the
services call, and the `/metrics` view.

Counters and histograms live in files under `PROMETHEUS_MULTIPROC_DIR` when it is set
(`make run` sets it), one file per process, so what every gunicorn worker and every
Celery process counted adds up at scrape. prometheus_client picks its storage when it
is first imported, so the directory must exist by then: it is made here, before the
import. Without the variable (tests, a lone `runserver`) the process's own registry
is served.

Labels never come from raw input: routes are URL patterns, methods a fixed set,
statuses numbers, and the rest the API's own words, so no id can grow the series.
Gauges are not stored at all: each is one cheap query, run when Prometheus scrapes.
With `METRICS_ENABLED` off the helpers below count nothing.
"""

import hmac
import ipaddress
import os
from collections.abc import Callable

_MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if _MULTIPROC_DIR:
    os.makedirs(_MULTIPROC_DIR, exist_ok=True)
else:
    # Set but empty (a blank line in an env file) is no multiprocess mode here, while
    # prometheus_client, imported below, would count in files all the same: in the
    # working directory.
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)

from django.conf import settings  # noqa: E402
from django.db import transaction  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.views.decorators.csrf import csrf_exempt  # noqa: E402
from prometheus_client import (  # noqa: E402
    CONTENT_TYPE_PLAIN_0_0_4,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily  # noqa: E402

from .actors import actor_kind  # noqa: E402
from .error_codes import ErrorCode  # noqa: E402
from .errors import error_response  # noqa: E402
from .livemode import livemode_of  # noqa: E402

# The `_created` series say when a process first counted something: noise in multiprocess
# mode (where they are left out anyway), so left out everywhere.
disable_created_metrics()

HTTP_REQUESTS = Counter(
    "paymentsvc_http_requests_total",
    "HTTP requests answered, by method, URL pattern and status.",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "paymentsvc_http_request_duration_seconds",
    "Time to answer an HTTP request, by method and URL pattern.",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
ORDERS_CREATED = Counter(
    "paymentsvc_orders_created_total",
    "Orders created (committed), by side and live or sandbox terminal.",
    ["side", "livemode"],
)
ORDER_TRANSITIONS = Counter(
    "paymentsvc_order_transitions_total",
    "Order status changes (committed), by new status and who made them.",
    ["to", "actor"],
)
WEBHOOK_DELIVERIES = Counter(
    "paymentsvc_webhook_deliveries_total",
    "Webhook delivery attempts, by the delivery's status after the attempt: "
    "delivered, pending (failed, another attempt is scheduled) or failed (given up).",
    ["outcome"],
)

HTTP_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


def actor_label(actor: str) -> str:
    """An actor string as a label value: its kind, by the one rule of
    core.actors (the words events carry, docs/webhooks.md#payload)."""
    return actor_kind(actor)


def livemode_label(obj) -> str:
    """ "true" or "false": an order's stored livemode, or a terminal's, by the one
    rule of core.livemode."""
    return "true" if livemode_of(obj) else "false"


def _after_commit(fn: Callable[[], None]) -> None:
    """Count what was committed: a rolled-back change never happened. Outside a
    transaction this runs at once."""
    transaction.on_commit(fn, robust=True)


def order_created(*, order) -> None:
    if not settings.METRICS_ENABLED:
        return
    side, livemode = str(order.side), livemode_label(order)
    _after_commit(lambda: ORDERS_CREATED.labels(side=side, livemode=livemode).inc())


def order_transitioned(*, to: str, actor: str) -> None:
    if not settings.METRICS_ENABLED:
        return
    to, actor = str(to), actor_label(actor)
    _after_commit(lambda: ORDER_TRANSITIONS.labels(to=to, actor=actor).inc())


def webhook_delivery_attempted(*, state: str) -> None:
    if not settings.METRICS_ENABLED:
        return
    # Delivery states are stored as the API spells them (delivered, pending, failed).
    WEBHOOK_DELIVERIES.labels(outcome=str(state)).inc()


def http_request_observed(*, method: str, route: str, status: int, seconds: float) -> None:
    if not settings.METRICS_ENABLED:
        return
    method = method if method in HTTP_METHODS else "other"
    HTTP_REQUESTS.labels(method=method, route=route, status=str(status)).inc()
    HTTP_DURATION.labels(method=method, route=route).observe(seconds)


# --- Gauges computed at scrape ------------------------------------------------------------

# name -> (help, function returning the value); apps register theirs in ready(), so
# the core never imports an app's models.
_scrape_gauges: dict[str, tuple[str, Callable[[], float]]] = {}


def gauge_at_scrape(name: str, documentation: str, compute: Callable[[], float]) -> None:
    _scrape_gauges[name] = (documentation, compute)


class _ScrapeGauges:
    def describe(self):
        return []  # nothing to check at registration: no query before the first scrape

    def collect(self):
        for name, (documentation, compute) in sorted(_scrape_gauges.items()):
            yield GaugeMetricFamily(name, documentation, value=float(compute()))


if not _MULTIPROC_DIR:
    REGISTRY.register(_ScrapeGauges())


def exposition() -> bytes:
    """The text Prometheus reads: every process's counters plus the scrape gauges."""
    if not _MULTIPROC_DIR:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=_MULTIPROC_DIR)
    registry.register(_ScrapeGauges())
    return generate_latest(registry)


# --- The endpoint ---------------------------------------------------------------------------

_PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def _is_loopback(request) -> bool:
    """A client on this machine, talking to us directly. A request relayed by a proxy
    on this machine comes from loopback too, on behalf of anyone: it is not one."""
    if any(header in request.META for header in _PROXY_HEADERS):
        return False
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


def _bearer_matches(request, token: str) -> bool:
    scheme, _, given = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


@csrf_exempt
def metrics_view(request):
    if request.method not in ("GET", "HEAD"):
        response = error_response(ErrorCode.METHOD_NOT_ALLOWED)
        response["Allow"] = "GET, HEAD"
        return response
    token = settings.METRICS_TOKEN
    if token:
        if not _bearer_matches(request, token):
            response = error_response(ErrorCode.METRICS_UNAUTHORIZED)
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return response
    elif not _is_loopback(request):
        return error_response(ErrorCode.METRICS_FORBIDDEN)
    response = HttpResponse(exposition(), content_type=CONTENT_TYPE_PLAIN_0_0_4)
    response["Cache-Control"] = "no-store"
    return response
