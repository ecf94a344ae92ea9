from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.utils.translation import gettext_lazy as _

from core.admin_keys import KeyAdmin, KeyInline, issue_keys
from core.admin_pages import operator_money, operator_share
from core.admin_site import operator_note
from core.db import DbNow
from core.errors import ServiceError
from finance.accounts import normalize_account
from finance.services import api_key_revoke

from . import admin_lists as lists
from . import services
from .admin_books import trader_balance_html, trader_ledger_html
from .models import Order, OrderStatus, Requisite, Trader, TraderApiKey, conversion, shown_as_q
from .services.requisite_state import requisite_switch, switched


class TraderApiKeyInline(KeyInline):
    model = TraderApiKey


class RequisiteForm(forms.ModelForm):
    """A payer is told to send money to this account: it must be one for the method.
    Its `is_active` box is an operator's switch, with the switch's rule (the reason
    it is off, the count of expiries started again when on)."""

    class Meta:
        model = Requisite
        fields = ["trader", "method", "holder_name", "account", "is_active", "daily_limit"]
        fields += ["max_pending", "min_amount", "max_amount", "auto_disable_after"]

    def clean_daily_limit(self):
        limit = self.cleaned_data.get("daily_limit")
        if limit is not None and limit < 0:
            raise ValidationError(_("A daily limit cannot be negative."))
        return limit

    def _positive(self, name: str):
        value = self.cleaned_data.get(name)
        if value is not None and value <= 0:
            raise ValidationError(_("The amount must be above zero."))
        return value

    def clean_min_amount(self):
        return self._positive("min_amount")

    def clean_max_amount(self):
        return self._positive("max_amount")

    def clean_auto_disable_after(self):
        count = self.cleaned_data.get("auto_disable_after")
        if count == 0:
            raise ValidationError(_("At least one expiry in a row, or empty: never."))
        return count

    def save(self, commit=True):
        requisite = super().save(commit=False)
        if "is_active" in self.changed_data:
            switched(requisite, on=requisite.is_active, by_operator=True)
        if commit:
            requisite.save()
            self.save_m2m()
        return requisite

    def clean(self):
        data = super().clean()
        method, account = data.get("method"), data.get("account")
        low, high = data.get("min_amount"), data.get("max_amount")
        if low is not None and high is not None and low > high:
            self.add_error("max_amount", _("The maximum is below the minimum."))
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
    fields = ["method", "holder_name", "account", "is_active", "disabled_reason", "daily_limit"]
    fields += ["max_pending", "min_amount", "max_amount", "auto_disable_after"]
    readonly_fields = ["disabled_reason"]


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
    readonly_fields = ["workload", "balance", "ledger"]

    @admin.display(description=_("Balance"))
    def balance(self, obj):
        return trader_balance_html(obj)

    @admin.display(description=_("Ledger"))
    def ledger(self, obj):
        return trader_ledger_html(obj)

    def get_queryset(self, request):
        pending = shown_as_q(OrderStatus.PENDING, path="orders__")
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
        ended = ~shown_as_q(OrderStatus.PENDING)
        figures = Order.objects.filter(trader=obj, created_at__gte=since).aggregate(
            ended=Count("id", filter=ended),
            completed=Count("id", filter=Q(status=OrderStatus.COMPLETED)),
        )
        rate = conversion(figures["completed"], figures["ended"])
        rate = f"{operator_share(rate)} %" if rate is not None else "-"
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
        issue_keys(
            self, request, queryset, lambda t, name: services.trader_key_issue(trader=t, name=name)
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
            self.log_change(request, trader, operator_note(_("Revoked every API key")))
        messages.success(request, ngettext("Revoked %d key.", "Revoked %d keys.", count) % count)


@admin.register(TraderApiKey)
class TraderApiKeyAdmin(KeyAdmin):
    owner = "trader"
    revoke_key = staticmethod(api_key_revoke)


@admin.register(Requisite)
class RequisiteAdmin(admin.ModelAdmin):
    form = RequisiteForm
    list_display = [
        "account",
        "holder_name",
        "method",
        "trader",
        "is_active",
        "disabled_reason",
        "daily_limit",
    ]
    ordering = ["-created_at"]
    list_filter = ["is_active", "disabled_reason", "trader__sandbox", "method", "trader"]
    search_fields = ["account", "holder_name", "trader__name"]
    actions = ["switch_on", "switch_off"]

    def _switch(self, request, queryset, *, on: bool, verb: str):
        for requisite in queryset:
            requisite_switch(requisite_id=requisite.pk, on=on, by_operator=True)
            self.log_change(request, requisite, operator_note(verb))
        messages.success(
            request,
            _("%(verb)s: %(count)d requisite(s).") % {"verb": verb, "count": queryset.count()},
        )

    @admin.action(
        description=gettext_lazy("Switch on (the count of expiries starts again)"),
        permissions=["change"],
    )
    def switch_on(self, request, queryset):
        self._switch(request, queryset, on=True, verb=_("Switched on"))

    @admin.action(description=gettext_lazy("Switch off (by an operator)"), permissions=["change"])
    def switch_off(self, request, queryset):
        self._switch(request, queryset, on=False, verb=_("Switched off by an operator"))
