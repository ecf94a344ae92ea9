from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ERROR_FLAG
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied, ValidationError
from django.db.models import Count, Q
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from core.admin_keys import KeyAdmin, KeyInline
from core.admin_pages import ReadOnlyPageMixin, operator_money, operator_share, short_id
from core.db import DbNow
from core.errors import ServiceError
from core.formats import parse_uuid
from finance.accounts import normalize_account
from finance.services import api_key_revoke
from webhooks.admin import order_history

from . import admin_lists as lists
from . import services
from .export import orders_csv_response
from .models import Order, OrderStatus, Requisite, Trader, TraderApiKey


def _related(obj, name: str):
    """The object at the other end of a one-to-one relation, or None."""
    try:
        return getattr(obj, name)
    except ObjectDoesNotExist:
        return None


class TraderApiKeyInline(KeyInline):
    model = TraderApiKey


class RequisiteForm(forms.ModelForm):
    """A payer is told to send money to this account: it must be one for the method."""

    class Meta:
        model = Requisite
        fields = ["trader", "method", "holder_name", "account", "is_active", "daily_limit"]
        fields += ["max_pending"]

    def clean_daily_limit(self):
        limit = self.cleaned_data.get("daily_limit")
        if limit is not None and limit < 0:
            raise ValidationError(_("A daily limit cannot be negative."))
        return limit

    def clean(self):
        data = super().clean()
        method, account = data.get("method"), data.get("account")
        if method is not None and method.is_aggregate:
            self.add_error("method", _("Pick the bank's own method: the aggregate one has none."))
        elif method is not None and account:
            try:
                data["account"] = normalize_account(account, method.method_type)
            except ServiceError as exc:
                self.add_error("account", exc.message)
        return data


class RequisiteInline(admin.TabularInline):
    model = Requisite
    form = RequisiteForm
    extra = 0
    fields = ["method", "holder_name", "account", "is_active", "daily_limit", "max_pending"]


@admin.register(Trader)
class TraderAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "is_active",
        "sandbox",
        "open_orders",
        "turnover_today",
        "conversion_today",
        "created_at",
    ]
    list_filter = ["is_active", "sandbox"]
    ordering = ["-created_at"]
    search_fields = ["name", "id"]
    inlines = [RequisiteInline, TraderApiKeyInline]
    readonly_fields = ["workload"]

    def get_queryset(self, request):
        pending = Q(orders__status=OrderStatus.PENDING, orders__expires_at__gt=DbNow())
        traders = super().get_queryset(request).annotate(pending=Count("orders", filter=pending))
        return lists.with_today(traders, since=lists.operators_day_start())

    @admin.display(description=_("turnover today, ₽"), ordering="turnover_today")
    def turnover_today(self, obj):
        return operator_money(obj.turnover_today)

    @admin.display(description=_("conversion today"))
    def conversion_today(self, obj):
        if not obj.ended_today:
            return "—"
        return f"{operator_share(obj.completed_today * 100 / obj.ended_today)} %"

    @admin.display(description=_("open orders"), ordering="pending")
    def open_orders(self, obj):
        url = reverse("admin:orders_order_changelist")
        return format_html(
            '<a href="{}?trader__id__exact={}&amp;status__exact=Pending">{}</a>',
            url,
            obj.pk,
            obj.pending,
        )

    @admin.display(description=_("workload"))
    def workload(self, obj):
        """Pending now, conversion over 30 days, and the links to both lists."""
        if obj.pk is None:
            return "-"
        since = DbNow() - timedelta(days=30)
        ended = ~Q(status=OrderStatus.PENDING) | Q(expires_at__lte=DbNow())
        figures = Order.objects.filter(trader=obj, created_at__gte=since).aggregate(
            ended=Count("id", filter=ended),
            completed=Count("id", filter=Q(status=OrderStatus.COMPLETED)),
        )
        rate = f"{figures['completed'] * 100 / figures['ended']:.1f} %" if figures["ended"] else "-"
        return format_html(
            gettext(
                "{} open orders · conversion over 30 days {} ({} of {} ended) · "
                '<a href="{}?trader__id__exact={}">requisites</a> · '
                '<a href="{}?trader__id__exact={}">all orders</a>'
            ),
            self.open_orders(obj) if hasattr(obj, "pending") else "-",
            rate,
            figures["completed"],
            figures["ended"],
            reverse("admin:orders_requisite_changelist"),
            obj.pk,
            reverse("admin:orders_order_changelist"),
            obj.pk,
        )

    actions = ["generate_api_key", "revoke_api_keys"]

    @admin.action(
        description=_("Generate a new trader API key (shown once)"), permissions=["change"]
    )
    def generate_api_key(self, request, queryset):
        for trader in queryset:
            key, raw = services.trader_key_issue(
                trader=trader, name=f"issued by {request.user.get_username()}"
            )
            self.log_change(request, trader, f"Issued API key {key.key_prefix}…")
            messages.warning(
                request,
                gettext("New key for {name}: {key} — copy it now, it is not shown again.").format(
                    name=trader.name, key=raw
                ),
            )

    @admin.action(
        description=_("Revoke all API keys of the selected traders"), permissions=["change"]
    )
    def revoke_api_keys(self, request, queryset):
        count = 0
        for key in TraderApiKey.objects.filter(trader__in=queryset, revoked_at__isnull=True):
            api_key_revoke(key=key)
            count += 1
        for trader in queryset:
            self.log_change(request, trader, "Revoked every API key")
        messages.success(request, ngettext("Revoked %d key.", "Revoked %d keys.", count) % count)


@admin.register(TraderApiKey)
class TraderApiKeyAdmin(KeyAdmin):
    owner = "trader"
    revoke_key = staticmethod(api_key_revoke)


@admin.register(Requisite)
class RequisiteAdmin(admin.ModelAdmin):
    form = RequisiteForm
    list_display = ["account", "holder_name", "method", "trader", "is_active", "daily_limit"]
    ordering = ["-created_at"]
    list_filter = ["is_active", "trader__sandbox", "method", "trader"]
    search_fields = ["account", "holder_name", "trader__name"]


@admin.register(Order)
class OrderAdmin(ReadOnlyPageMixin, admin.ModelAdmin):
    # Columns that fit a 1280-pixel screen beside the filters; the rest is one click away.
    list_display = [
        "order_id",
        "client_order_id",
        "terminal",
        "mode",
        "order_side",
        "amount",
        "status",
        "method",
        "trader",
        "created_at",
    ]
    list_display_links = ["order_id"]
    list_filter = [
        "status",
        "side",
        lists.ModeFilter,
        lists.OverdueFilter,
        lists.PayerPaidFilter,
        lists.ReceiptsFilter,
        lists.AgeFilter,
        "terminal",
        "method",
        "trader",
    ]
    search_fields = ["client_order_id"]  # shows the box; get_search_results says what it finds
    search_help_text = lists.SEARCH_HELP
    ordering = ["-created_at", "-id"]
    date_hierarchy = "created_at"
    list_select_related = ["terminal", "method", "trader"]
    actions = ["confirm_orders", "cancel_orders"]
    show_full_result_count = False

    def get_readonly_fields(self, request, obj=None):
        return ["operator_actions", *(f.name for f in self.model._meta.fields), "history"]

    @admin.display(description=_("id"), ordering="id")
    def order_id(self, obj):
        return short_id(obj.pk)

    @admin.display(description=pgettext_lazy("column", "side"), ordering="side")
    def order_side(self, obj):
        return obj.side

    @admin.display(description=_("mode"), ordering="livemode")
    def mode(self, obj):
        return gettext("live") if obj.livemode else gettext("sandbox")

    def get_search_results(self, request, queryset, search_term):
        if not search_term.strip():
            return queryset, False
        return queryset.filter(lists.order_search(search_term)), False

    @admin.display(description=_("what next"))
    def operator_actions(self, obj):
        """From an order to what operators check or do next, one click each."""
        buttons = []
        if obj.status == OrderStatus.PENDING:
            for action, label in (
                ("confirm_orders", gettext("Confirm…")),
                ("cancel_orders", gettext("Cancel…")),
            ):
                url = reverse("admin:orders_order_do", args=[obj.pk, action])
                buttons.append((url, label, "button"))
        links = [
            (reverse("admin:orders_order_history", args=[obj.pk]), gettext("History"), ""),
            (
                reverse("admin:webhooks_webhookevent_changelist") + f"?q={obj.pk}",
                gettext("Webhooks"),
                "",
            ),
        ]
        for relation, url_name, label in (
            ("balance", "admin:finance_balance_change", gettext("Merchant's balance")),
            ("dispute", "admin:disputes_dispute_change", gettext("Dispute")),
        ):
            related = _related(obj.terminal if relation == "balance" else obj, relation)
            if related is not None:
                links.append((reverse(url_name, args=[related.pk]), label, ""))
        if obj.trader_id:
            links.append(
                (reverse("admin:orders_trader_change", args=[obj.trader_id]), gettext("Trader"), "")
            )
        return format_html_join(
            " · ", '<a href="{}" class="{}">{}</a>', ((u, c, t) for u, t, c in buttons + links)
        )

    def order_action_view(self, request, object_id, action):
        """The detail page's Confirm…/Cancel…: the same confirmation page and service
        calls as the list's actions, for this one order."""
        if action not in self.EFFECTS or not self.has_change_permission(request):
            raise PermissionDenied
        order_id = parse_uuid(object_id)
        queryset = Order.objects.filter(pk=order_id) if order_id else Order.objects.none()
        response = getattr(self, action)(request, queryset)
        return response or redirect(reverse("admin:orders_order_change", args=[object_id]))

    def get_urls(self):
        export = self.admin_site.admin_view(self.export_csv)
        act = self.admin_site.admin_view(self.order_action_view)
        return [
            path("export.csv", export, name="orders_order_export"),
            path("<path:object_id>/do/<str:action>/", act, name="orders_order_do"),
            *super().get_urls(),
        ]

    def export_csv(self, request):
        """The orders the list's current filters, search and ordering select, as CSV."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            changelist = self.get_changelist_instance(request)
        except IncorrectLookupParameters:
            return redirect(f"{reverse('admin:orders_order_changelist')}?{ERROR_FLAG}=1")
        return orders_csv_response(changelist.queryset)

    @admin.display(description=_("history (events and webhook deliveries)"))
    def history(self, obj):
        back = reverse("admin:orders_order_change", args=[obj.pk])
        return order_history(order_id=obj.pk, back=back)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    EFFECTS = {
        "confirm_orders": (
            _("confirm"),
            _("Confirm orders"),
            _(
                "A Buy credits its merchant the amount less the fee; a Sell posts its reserve "
                "(amount plus fee) as a withdrawal. The merchants are notified."
            ),
        ),
        "cancel_orders": (
            _("cancel"),
            _("Cancel orders"),
            _(
                "Nothing is credited; a Sell's reserve goes back to its merchant's available "
                "balance. The merchants are notified."
            ),
        ),
    }

    def _confirmation(self, request, queryset, action):
        """Money moves and merchants are notified: the operator sees what first."""
        verb, title, effect = self.EFFECTS[action]
        pending = list(
            queryset.filter(status=OrderStatus.PENDING).select_related("terminal").order_by("pk")
        )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": title,
            "verb": verb,
            "effect": effect,
            "action": action,
            "orders": pending,
            "skipped": queryset.count() - len(pending),
        }
        return TemplateResponse(request, "admin/orders/order/action_confirmation.html", context)

    DONE = {
        "Completed": lambda n: ngettext("Completed %d order.", "Completed %d orders.", n),
        "Cancelled": lambda n: ngettext("Cancelled %d order.", "Cancelled %d orders.", n),
    }

    def _apply(self, request, queryset, service, verb):
        done = 0
        for order in queryset.filter(status=OrderStatus.PENDING):
            try:
                service(order_id=order.pk, actor=f"operator:{request.user.get_username()}")
                self.log_change(request, order, f"{verb} through the admin")
                done += 1
            except ServiceError as exc:
                messages.error(request, f"{order.pk}: {exc.message}")
        messages.success(request, self.DONE[verb](done) % done)

    @admin.action(
        description=_("Confirm (complete) selected Pending orders…"), permissions=["change"]
    )
    def confirm_orders(self, request, queryset):
        if request.POST.get("confirmed") != "yes":
            return self._confirmation(request, queryset, "confirm_orders")
        self._apply(request, queryset, services.order_confirm, "Completed")

    @admin.action(description=_("Cancel selected Pending orders…"), permissions=["change"])
    def cancel_orders(self, request, queryset):
        if request.POST.get("confirmed") != "yes":
            return self._confirmation(request, queryset, "cancel_orders")
        self._apply(request, queryset, services.order_cancel, "Cancelled")
