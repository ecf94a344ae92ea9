"""Operators' view of webhooks: every event with its deliveries and the log of every
attempt, and a resend that goes through delivery_resend."""

import json

from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.timezone import localtime
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.admin_pages import ReadOnlyPageMixin, operator_time, short_id
from core.admin_site import operator_note
from core.formats import parse_uuid

from . import services
from .models import WebhookAttempt, WebhookDelivery, WebhookEvent

ATTEMPT_COLUMNS = [
    _("delivery"),
    "#",
    _("started"),
    _("status"),
    _("ms"),
    _("error"),
    _("response excerpt"),
]


class DeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    extra = 0
    fields = ["url", "state", "attempts", "next_attempt_at", "last_status_code", "last_error"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


def _search(queryset, search_term, *, event, order, url=None):
    """An event id (msg_…), an order id (a UUID) or, for deliveries, part of the URL.
    The admin's own search would compare a UUID column with any text and fail."""
    term = search_term.strip()
    if not term:
        return queryset
    if term.startswith("msg_"):
        return queryset.filter(**{event: term})
    order_id = parse_uuid(term)
    if order_id is not None:
        return queryset.filter(**{order: order_id})
    if url:
        return queryset.filter(**{f"{url}__icontains": term})
    return queryset.none()


def _attempt_rows(attempts) -> str:
    return format_html_join(
        "",
        "<li>{} · {} · {} " + gettext("ms") + "{}</li>",
        (
            (
                operator_time(a.started_at),
                f"HTTP {a.status_code}" if a.status_code else gettext("no answer"),
                a.duration_ms,
                format_html(" · {}", a.error) if a.error else "",
            )
            for a in attempts
        ),
    )


def _resend_button(delivery, back: str) -> str:
    # The admin's change page is already a form carrying the CSRF token: the button
    # posts it to the resend view instead of the page's own action.
    url = reverse("admin:webhooks_webhookdelivery_resend", args=[delivery.pk])
    return format_html(
        '<button type="submit" class="button" formmethod="post" formaction="{}?{}" '
        'data-testid="resend-delivery-{}">{}</button>',
        url,
        urlencode({"next": back}),
        delivery.pk,
        gettext("Resend"),
    )


def order_history(*, order_id, back: str) -> str:
    """An order's history for its admin pages: every event, newest first, with who
    caused it, and each delivery with its attempts and a resend button. `back` is the
    page a resend returns to."""
    events = list(
        WebhookEvent.objects.filter(order_id=order_id)
        .order_by("-sequence")
        .prefetch_related("deliveries__attempt_log")
    )
    if not events:
        return gettext("No event yet.")
    rows = []
    for event in events:
        deliveries = format_html_join(
            "",
            "<div><a href='{}'>{}</a> <b>{}</b> {}<ul>{}</ul></div>",
            (
                (
                    reverse("admin:webhooks_webhookdelivery_change", args=[d.pk]),
                    d.url,
                    d.state,
                    _resend_button(d, back),
                    _attempt_rows(sorted(d.attempt_log.all(), key=lambda a: a.started_at)),
                )
                for d in sorted(event.deliveries.all(), key=lambda d: d.pk)
            ),
        )
        rows.append(
            format_html(
                "<tr data-testid='event-{}'><td>{}</td><td><a href='{}'>{}</a></td><td>{}</td>"
                "<td>{}</td><td>{}</td></tr>",
                event.sequence,
                event.sequence,
                reverse("admin:webhooks_webhookevent_change", args=[quote(event.pk)]),
                event.type,
                event.actor,
                operator_time(event.created_at),
                deliveries or gettext("no webhook target"),
            )
        )
    head = format_html_join(
        "",
        "<th>{}</th>",
        (
            (c,)
            for c in [
                "#",
                gettext("event"),
                gettext("actor"),
                gettext("time"),
                gettext("deliveries"),
            ]
        ),
    )
    return format_html(
        "<table><tr>{}</tr>{}</table>", head, format_html_join("", "{}", ((r,) for r in rows))
    )


RESENT = _("Resent through the admin")


def _resend(model_admin, request, deliveries) -> None:
    """Each delivery queued to send now, and noted in its history (and the audit log)."""
    count = 0
    for delivery in deliveries:
        services.delivery_resend(delivery=delivery)
        model_admin.log_change(request, delivery, operator_note(RESENT))
        count += 1
    messages.success(
        request,
        ngettext(
            "Queued %d delivery for sending now.", "Queued %d deliveries for sending now.", count
        )
        % count,
    )


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnlyPageMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "type",
        "order_short_id",
        "sequence",
        "actor",
        "terminal",
        "delivery_states",
        "created_at",
    ]
    list_filter = ["type", "actor", "deliveries__state", "terminal"]
    search_fields = ["=id", "=order_id"]
    date_hierarchy = "created_at"
    inlines = [DeliveryInline]
    fields = [
        "id",
        "terminal",
        "order_id",
        "type",
        "sequence",
        "actor",
        "livemode",
        "created_at",
        "pretty_body",
        "attempt_log",
    ]
    readonly_fields = fields
    actions = ["resend"]

    def get_queryset(self, request):
        return (
            super().get_queryset(request).select_related("terminal").prefetch_related("deliveries")
        )

    def get_search_results(self, request, queryset, search_term):
        return _search(queryset, search_term, event="id", order="order_id"), False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("order"), ordering="order_id")
    def order_short_id(self, obj):
        return short_id(obj.order_id)

    @admin.display(description=_("deliveries"))
    def delivery_states(self, obj):
        return ", ".join(str(d.get_state_display()) for d in obj.deliveries.all()) or "-"

    @admin.display(description=_("body (as signed and sent, shown indented)"))
    def pretty_body(self, obj):
        try:
            text = json.dumps(json.loads(obj.body), indent=2, ensure_ascii=False)
        except ValueError:
            text = obj.body
        return format_html(
            '<pre style="white-space:pre-wrap;max-height:32em;overflow:auto;margin:0">{}</pre>',
            text,
        )

    @admin.display(description=_("delivery log"))
    def attempt_log(self, obj):
        attempts = (
            WebhookAttempt.objects.filter(delivery__event=obj)
            .select_related("delivery")
            .order_by("started_at", "number")
        )
        if not attempts:
            return gettext("No attempt yet.")
        head = format_html_join("", "<th>{}</th>", ((c,) for c in ATTEMPT_COLUMNS))
        rows = format_html_join(
            "",
            "<tr><td><a href='{}'>{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td><td><code>{}</code></td></tr>",
            (
                (
                    reverse("admin:webhooks_webhookdelivery_change", args=[a.delivery_id]),
                    a.delivery.url,
                    a.number,
                    date_format(localtime(a.started_at), "DATETIME_FORMAT"),
                    a.status_code or "-",
                    a.duration_ms,
                    a.error or "-",
                    a.response_excerpt[:300],
                )
                for a in attempts
            ),
        )
        return format_html("<table><tr>{}</tr>{}</table>", head, rows)

    @admin.action(
        description=_("Resend every delivery of the selected events now"), permissions=["change"]
    )
    def resend(self, request, queryset):
        _resend(self, request, WebhookDelivery.objects.filter(event__in=queryset).order_by("pk"))


class AttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    fields = ["number", "started_at", "duration_ms", "status_code", "error", "response_excerpt"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyPageMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "event_link",
        "event_type",
        "url",
        "state",
        "attempts",
        "last_status_code",
        "next_attempt_at",
        "updated_at",
    ]
    list_filter = ["state", "event__type", "event__terminal"]
    search_fields = ["=event__id", "=event__order_id", "url"]
    list_select_related = ["event"]
    readonly_fields = [
        "event",
        "url",
        "state",
        "attempts",
        "next_attempt_at",
        "locked_until",
        "last_status_code",
        "last_error",
        "created_at",
        "updated_at",
    ]
    inlines = [AttemptInline]
    actions = ["resend"]

    def get_search_results(self, request, queryset, search_term):
        return _search(
            queryset, search_term, event="event_id", order="event__order_id", url="url"
        ), False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("event"), ordering="event__created_at")
    def event_link(self, obj):
        # quote(): the admin reads "_40"-style escapes in ids, and event ids hold "_".
        url = reverse("admin:webhooks_webhookevent_change", args=[quote(obj.event_id)])
        return format_html('<a href="{}">{}</a>', url, obj.event_id)

    @admin.display(description=_("type"), ordering="event__type")
    def event_type(self, obj):
        return obj.event.type

    def get_urls(self):
        return [
            path(
                "<int:delivery_id>/resend/",
                self.admin_site.admin_view(self.resend_view),
                name="webhooks_webhookdelivery_resend",
            ),
            *super().get_urls(),
        ]

    def resend_view(self, request, delivery_id):
        """The resend button of the order and dispute pages."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        delivery = get_object_or_404(WebhookDelivery, pk=delivery_id)
        services.delivery_resend(delivery=delivery)
        self.log_change(request, delivery, operator_note(RESENT))
        messages.success(
            request,
            gettext("Delivery {id} to {url} queued to send now.").format(
                id=delivery.pk, url=delivery.url
            ),
        )
        back = request.GET.get("next", "")
        if not url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            back = reverse("admin:webhooks_webhookdelivery_change", args=[delivery.pk])
        return HttpResponseRedirect(back)

    @admin.action(description=_("Resend selected deliveries now"), permissions=["change"])
    def resend(self, request, queryset):
        _resend(self, request, queryset.order_by("pk"))
