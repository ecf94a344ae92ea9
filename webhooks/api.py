"""The merchant's event log, webhook deliveries and webhook self-service (docs/webhooks.md).

Every route is one terminal's: another terminal's event or delivery is a 404, exactly
like an unknown one."""

from concurrent.futures import ThreadPoolExecutor, wait

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.actors import Actor
from core.api import TerminalAPIView, ok, page_query, parse_query
from core.error_codes import ErrorCode
from core.errors import NotFound
from core.fields import TrimmedTextField
from core.formats import HTTP_URL_PATTERN, http_url_problem
from core.pagination import PageAsked
from core.schema import capped_page_schema
from finance.models import WEBHOOK_URL_MAX_LENGTH, WEBHOOK_URLS_MAX

from . import selectors, services
from .guard import DeliveryRefused, resolve_target
from .models import DeliveryState, EventType

# Event ids are "msg_" and 32 hex digits; delivery ids are bigint keys.
EVENT_ID_MAX_LENGTH = 40
MAX_DELIVERY_ID = 2**63 - 1
# Setting the URL list looks every host up at once, and waits at most this long.
URL_CHECK_SECONDS = 5

# --- Schemas: what is sent, field by field ---------------------------------------------


class EventOut(serializers.Serializer):
    id = serializers.CharField(help_text="The event id, equal to the delivered webhook-id")
    type = serializers.ChoiceField(choices=EventType.choices)
    created_at = serializers.CharField()
    sequence = serializers.IntegerField(help_text="Counts up per order")
    livemode = serializers.BooleanField()
    actor = serializers.ChoiceField(choices=Actor.choices)
    data = serializers.DictField(
        help_text="`order`: the Order as the order API returns it; dispute events add "
        "`dispute`, as the dispute search returns it"
    )


class AttemptOut(serializers.Serializer):
    attempted_at = serializers.CharField()
    response_status = serializers.IntegerField(
        allow_null=True, help_text="null when no HTTP answer came (network error, timeout)"
    )
    duration_ms = serializers.IntegerField()
    error = serializers.CharField(allow_null=True)
    response_excerpt = serializers.CharField(allow_blank=True)


class DeliveryOut(serializers.Serializer):
    id = serializers.CharField(help_text="A numeric-looking string")
    event_id = serializers.CharField()
    event_type = serializers.ChoiceField(choices=EventType.choices)
    order_id = serializers.CharField()
    url = serializers.CharField()
    status = serializers.ChoiceField(choices=DeliveryState.choices)
    attempts_count = serializers.IntegerField()
    next_attempt_at = serializers.CharField(allow_null=True)
    delivered_at = serializers.CharField(allow_null=True)
    last_response_status = serializers.IntegerField(allow_null=True)


class DeliveryDetailOut(DeliveryOut):
    attempts = AttemptOut(many=True, help_text="Newest first")


def _envelope(name: str, **fields) -> serializers.Serializer:
    return inline_serializer(
        name,
        {"success": serializers.BooleanField(), "message": serializers.CharField(), **fields},
    )


EventEnvelope = _envelope("EventResponse", event=EventOut())
EventPage = _envelope(
    "EventPage",
    events=capped_page_schema(
        "EventPageBody", EventOut(many=True), rows="events", cap_setting="EVENT_LIST_COUNT_CAP"
    ),
)
DeliveryEnvelope = _envelope("DeliveryResponse", delivery=DeliveryDetailOut())
DeliveryPage = _envelope(
    "DeliveryPage",
    deliveries=capped_page_schema(
        "DeliveryPageBody",
        DeliveryOut(many=True),
        rows="deliveries",
        cap_setting="EVENT_LIST_COUNT_CAP",
    ),
)
EndpointsEnvelope = _envelope(
    "WebhookEndpointsResponse", urls=serializers.ListField(child=serializers.CharField())
)
SecretEnvelope = _envelope(
    "WebhookSecretResponse",
    secret=serializers.CharField(help_text="The new whsec_ secret, shown this once"),
)


# --- Events ---------------------------------------------------------------------------


class EventListQuery(page_query(10)):
    type = serializers.ChoiceField(choices=EventType.choices, required=False)
    order_id = serializers.UUIDField(required=False, help_text="The order's id: its history")
    created_after = serializers.DateTimeField(
        required=False, help_text="Not after created_before (400 otherwise)."
    )
    created_before = serializers.DateTimeField(
        required=False, help_text="Not before created_after (400 otherwise)."
    )
    starting_after = TrimmedTextField(
        required=False,
        max_length=EVENT_ID_MAX_LENGTH,
        help_text="An event id: the page of events right after it in this list's order "
        "(the next page, older events). With a cursor, `page` is not used: the answer is "
        "page 1 of what lies beyond the cursor. An id that is not one of the terminal's "
        "events: 404.",
    )
    ending_before = TrimmedTextField(
        required=False,
        max_length=EVENT_ID_MAX_LENGTH,
        help_text="An event id: the page of events right before it in this list's order "
        "(the previous page, newer events). With `starting_after` too, the events "
        "between the two.",
    )

    def validate(self, attrs):
        after, before = attrs.get("created_after"), attrs.get("created_before")
        if after and before and after > before:
            raise serializers.ValidationError(
                {"created_after": ["Must not be after created_before"]}
            )
        return attrs


class EventCollectionView(TerminalAPIView):
    @extend_schema(operation_id="event_list", parameters=[EventListQuery], responses=EventPage)
    def get(self, request):
        q = parse_query(EventListQuery, request)
        page = selectors.event_page(
            PageAsked.of(q, count_cap=settings.EVENT_LIST_COUNT_CAP),
            terminal=self.terminal,
            type=q.get("type"),
            order_id=q.get("order_id"),
            created_after=q.get("created_after"),
            created_before=q.get("created_before"),
        )
        page["items"] = selectors.render_events(page["items"])
        return Response(ok(events=page))


class EventDetailView(TerminalAPIView):
    @extend_schema(operation_id="event_get", responses=EventEnvelope)
    def get(self, request, event_id):
        event = None
        if len(event_id) <= EVENT_ID_MAX_LENGTH and "\x00" not in event_id:
            event = selectors.event_get(terminal=self.terminal, event_id=event_id)
        if event is None:
            raise NotFound(code=ErrorCode.EVENT_NOT_FOUND)
        return Response(ok(event=selectors.render_event(event)))


# --- Deliveries -----------------------------------------------------------------------


class DeliveryListQuery(page_query(10)):
    event_id = TrimmedTextField(required=False, max_length=EVENT_ID_MAX_LENGTH)
    order_id = serializers.UUIDField(required=False)
    status = serializers.ChoiceField(choices=DeliveryState.choices, required=False)
    starting_after = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_DELIVERY_ID,
        help_text="A delivery id: the page of deliveries right after it in this list's "
        "order (the next page, older deliveries). With a cursor, `page` is not used: the "
        "answer is page 1 of what lies beyond the cursor. An id that is not one of the "
        "terminal's deliveries: 404.",
    )
    ending_before = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_DELIVERY_ID,
        help_text="A delivery id: the page of deliveries right before it in this list's "
        "order (the previous page, newer deliveries). With `starting_after` too, the "
        "deliveries between the two.",
    )


def _delivery_of_terminal(terminal, delivery_id: str):
    delivery = None
    if delivery_id.isascii() and delivery_id.isdigit() and 0 < int(delivery_id) <= MAX_DELIVERY_ID:
        delivery = selectors.delivery_get(terminal=terminal, delivery_id=int(delivery_id))
    if delivery is None:
        raise NotFound(code=ErrorCode.DELIVERY_NOT_FOUND)
    return delivery


class DeliveryCollectionView(TerminalAPIView):
    @extend_schema(
        operation_id="webhook_delivery_list", parameters=[DeliveryListQuery], responses=DeliveryPage
    )
    def get(self, request):
        q = parse_query(DeliveryListQuery, request)
        page = selectors.delivery_page(
            PageAsked.of(q, count_cap=settings.EVENT_LIST_COUNT_CAP),
            terminal=self.terminal,
            event_id=q.get("event_id"),
            order_id=q.get("order_id"),
            status=q.get("status"),
        )
        page["items"] = selectors.render_deliveries(page["items"])
        return Response(ok(deliveries=page))


class DeliveryDetailView(TerminalAPIView):
    @extend_schema(operation_id="webhook_delivery_get", responses=DeliveryEnvelope)
    def get(self, request, delivery_id):
        delivery = _delivery_of_terminal(self.terminal, delivery_id)
        return Response(ok(delivery=selectors.render_delivery(delivery, with_attempts=True)))


class DeliveryResendView(TerminalAPIView):
    @extend_schema(
        operation_id="webhook_delivery_resend", request=None, responses={202: DeliveryEnvelope}
    )
    def post(self, request, delivery_id):
        delivery = _delivery_of_terminal(self.terminal, delivery_id)
        delivery = services.delivery_resend(delivery=delivery)
        return Response(
            ok(delivery=selectors.render_delivery(delivery, with_attempts=True)), status=202
        )


# --- Self-service: endpoints and the signing secret --------------------------------------


def _guard_problem(url: str) -> str | None:
    try:
        resolve_target(url)
    except DeliveryRefused as exc:
        return str(exc)
    return None


def webhook_url_problems(urls: list[str]) -> dict[str, str]:
    """Why the delivery guard would refuse each URL, so a merchant learns it when
    setting the list rather than from failed deliveries. Where private networks are
    allowed (development, `make run`), any http(s) URL passes without a lookup, as
    the guard then lets any address through; otherwise https only, on a host that
    resolves to public addresses, all hosts looked up at once within a bounded time."""
    problems = {}
    for url in urls:
        problem = http_url_problem(url, max_length=WEBHOOK_URL_MAX_LENGTH)
        if problem is None and not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
            if not url.lower().startswith("https://"):
                problem = "Must be an https URL"
        if problem:
            problems[url] = problem
    if settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        return problems
    pending = [url for url in urls if url not in problems]
    if not pending:
        return problems
    pool = ThreadPoolExecutor(max_workers=len(pending))
    try:
        futures = {pool.submit(_guard_problem, url): url for url in pending}
        done, _ = wait(futures, timeout=URL_CHECK_SECONDS)
        for future, url in futures.items():
            problem = future.result() if future in done else "Cannot resolve the host in time"
            if problem:
                problems[url] = problem
    finally:
        pool.shutdown(wait=False)
    return problems


@extend_schema_field(
    {
        "type": "string",
        "pattern": HTTP_URL_PATTERN,
        "maxLength": WEBHOOK_URL_MAX_LENGTH,
    }
)
class WebhookUrlField(serializers.CharField):
    def __init__(self, **kwargs):
        super().__init__(max_length=WEBHOOK_URL_MAX_LENGTH, trim_whitespace=False, **kwargs)


class EndpointsIn(serializers.Serializer):
    urls = serializers.ListField(
        child=WebhookUrlField(),
        allow_empty=True,
        max_length=WEBHOOK_URLS_MAX,
        help_text=f"At most {WEBHOOK_URLS_MAX} URLs; duplicates are dropped (the first "
        "kept). Each an http(s) URL the delivery guard would call: where private networks "
        "are not allowed (production), https only, on a host resolving to public "
        "addresses (400 otherwise; a DNS rule the schema cannot state).",
    )

    def validate_urls(self, urls):
        urls = list(dict.fromkeys(urls))
        problems = webhook_url_problems(urls)
        if problems:
            raise serializers.ValidationError([f"{url}: {p}" for url, p in problems.items()])
        return urls


class EndpointsView(TerminalAPIView):
    @extend_schema(operation_id="webhook_endpoints_get", responses=EndpointsEnvelope)
    def get(self, request):
        return Response(ok(urls=list(self.terminal.webhook_urls or [])))

    @extend_schema(
        operation_id="webhook_endpoints_set", request=EndpointsIn, responses=EndpointsEnvelope
    )
    def put(self, request):
        data = EndpointsIn(data=request.data)
        data.is_valid(raise_exception=True)
        urls = services.webhook_urls_set(terminal=self.terminal, urls=data.validated_data["urls"])
        return Response(ok(urls=urls))


class SecretRotateView(TerminalAPIView):
    @extend_schema(operation_id="webhook_secret_rotate", request=None, responses=SecretEnvelope)
    def post(self, request):
        secret = services.webhook_secret_rotate(terminal=self.terminal)
        return Response(ok(secret=secret))
