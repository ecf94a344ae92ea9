from django.contrib import admin, messages
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.admin_keys import KeyAdmin, KeyInline, issue_keys
from core.admin_site import operator_note
from core.errors import ServiceError

from . import services
from .admin_forms import (
    AdjustForm,
    BlacklistForm,
    FeeRangeFormSet,
    PaymentMethodForm,
    TerminalForm,
    TerminalMethodFormSet,
)
from .descriptions import shown_description
from .models import (
    ApiKey,
    Balance,
    BlacklistedAccount,
    Client,
    FeeRange,
    PaymentMethod,
    Reserve,
    Terminal,
    TerminalMethod,
    Transaction,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Ledger rows are append-only: operators look, never edit."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Client)
class ClientAdmin(admin.ModelAdmin):
    ordering = ["-created_at"]
    list_display = ["name", "created_at"]
    search_fields = ["name"]


class TerminalMethodInline(admin.TabularInline):
    model = TerminalMethod
    formset = TerminalMethodFormSet
    extra = 0
    autocomplete_fields = ["method"]


class ApiKeyInline(KeyInline):
    model = ApiKey


@admin.register(Terminal)
class TerminalAdmin(admin.ModelAdmin):
    ordering = ["-created_at"]
    list_display = [
        "name",
        "client",
        "integration_type",
        "form_activated",
        "currency",
        "is_active",
        "sandbox",
        "balance_link",
    ]
    list_filter = ["integration_type", "form_activated", "is_active", "sandbox", "currency"]
    search_fields = ["name", "client__name", "id"]
    form = TerminalForm
    # The signing secret is never shown again: it is made on creation (or rotated by
    # the action) and handed over once.
    readonly_fields = ["id", "webhook_secret_hint", "created_at"]
    inlines = [TerminalMethodInline, ApiKeyInline]
    actions = ["generate_api_key", "rotate_webhook_secret"]

    @admin.display(description=_("balance"))
    def balance_link(self, obj):
        balance = getattr(obj, "balance", None)
        if balance is None:
            return "-"
        url = reverse("admin:finance_balance_change", args=[balance.pk])
        return format_html(
            '<a href="{}">{}</a>',
            url,
            gettext("{available} available, {frozen} frozen").format(
                available=balance.available, frozen=balance.frozen
            ),
        )

    @admin.display(description=_("webhook secret"))
    def webhook_secret_hint(self, obj):
        if not obj or not obj.webhook_secret:
            return gettext("made when the terminal is saved, and shown once")
        return gettext("{hint}… (rotate to hand over a new one)").format(
            hint=obj.webhook_secret[:10]
        )

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        secret = services.new_webhook_secret()
        created = services.terminal_create(
            client=obj.client,
            name=obj.name,
            webhook_secret=secret,
            currency=obj.currency,
            integration_type=obj.integration_type,
            form_activated=obj.form_activated,
            webhook_urls=obj.webhook_urls,
            antifraud_max_pending=obj.antifraud_max_pending,
            is_active=obj.is_active,
            sandbox=obj.sandbox,
        )
        obj.pk = created.pk
        obj._state.adding = False
        messages.warning(
            request,
            gettext("Webhook secret for {name}: {secret} — hand it to the merchant now.").format(
                name=created.name, secret=secret
            ),
        )

    @admin.action(description=_("Generate a new API key (shown once)"), permissions=["change"])
    def generate_api_key(self, request, queryset):
        issue_keys(
            self, request, queryset, lambda t, name: services.api_key_issue(terminal=t, name=name)
        )

    @admin.action(
        description=_("Rotate the webhook signing secret (shown once)"), permissions=["change"]
    )
    def rotate_webhook_secret(self, request, queryset):
        for terminal in queryset:
            secret = services.terminal_webhook_secret_rotate(terminal=terminal)
            self.log_change(
                request, terminal, operator_note(_("Rotated the webhook signing secret"))
            )
            messages.warning(
                request,
                gettext(
                    "New webhook secret for {name}: {secret} — hand it to the merchant now. "
                    "The old one keeps signing beside it for 24 hours."
                ).format(name=terminal.name, secret=secret),
            )


@admin.register(ApiKey)
class ApiKeyAdmin(KeyAdmin):
    owner = "terminal"
    revoke_key = staticmethod(services.api_key_revoke)


class FeeRangeInline(admin.TabularInline):
    model = FeeRange
    formset = FeeRangeFormSet
    extra = 0


@admin.register(PaymentMethod)
class PaymentMethodAdmin(admin.ModelAdmin):
    ordering = ["-created_at"]
    form = PaymentMethodForm
    list_display = [
        "name",
        "name_ru",
        "method_type",
        "nspk_code",
        "is_aggregate",
        "is_active",
        "currency",
    ]
    list_filter = ["method_type", "is_active", "is_aggregate", "currency"]
    search_fields = ["name", "name_ru", "nspk_code", "id"]
    readonly_fields = ["id", "created_at"]
    inlines = [FeeRangeInline]


@admin.register(Balance)
class BalanceAdmin(admin.ModelAdmin):
    ordering = ["-updated_at"]
    list_display = [
        "terminal",
        "kind",
        "currency",
        "available",
        "frozen",
        "balance_total",
        "updated_at",
        "adjust_link",
    ]
    search_fields = ["terminal__name", "id"]
    readonly_fields = [
        "id",
        "terminal",
        "currency",
        "available",
        "frozen",
        "balance_total",
        "updated_at",
    ]
    fields = readonly_fields

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("total"))
    def balance_total(self, obj):
        return obj.total

    @admin.display(description=_("adjust"))
    def adjust_link(self, obj):
        if obj.terminal_id is None:
            return "-"
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:finance_balance_adjust", args=[obj.pk]),
            gettext("Top up / withdraw"),
        )

    def get_urls(self):
        return [
            path(
                "<uuid:pk>/adjust/",
                self.admin_site.admin_view(self.adjust_view),
                name="finance_balance_adjust",
            ),
            *super().get_urls(),
        ]

    def adjust_view(self, request, pk):
        balance = get_object_or_404(Balance.objects.select_related("terminal"), pk=pk)
        if balance.terminal_id is None:
            messages.error(
                request, gettext("Traders' and the platform's money moves by settlements.")
            )
            return redirect("admin:finance_balance_changelist")
        if not self.has_view_permission(request, balance) or not request.user.has_perm(
            "finance.add_transaction"
        ):
            messages.error(request, gettext("You may not adjust balances."))
            return redirect("admin:finance_balance_changelist")
        form = AdjustForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                services.balance_adjust(
                    terminal_id=balance.terminal_id,
                    amount=form.cleaned_data["amount"],
                    description=form.cleaned_data["comment"],
                    actor=request.user.get_username(),
                )
            except ServiceError as exc:
                form.add_error("amount", exc.message)
            else:
                self.log_change(
                    request,
                    balance,
                    operator_note(
                        _("Adjusted by %(amount)s: %(comment)s"),
                        amount=form.cleaned_data["amount"],
                        comment=form.cleaned_data["comment"],
                    ),
                )
                messages.success(
                    request, gettext("Balance adjusted; the ledger has a new transaction.")
                )
                return redirect("admin:finance_balance_change", balance.pk)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Adjust the balance of {terminal}").format(terminal=balance.terminal),
            "balance": balance,
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/finance/balance_adjust.html", context)


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    ordering = ["-created_at"]
    list_display = [
        "created_at",
        "balance",
        "transaction_type",
        "amount",
        "balance_after",
        "description",
        "reference",
        "created_by",
    ]
    list_filter = ["transaction_type", "balance__terminal"]
    search_fields = ["id", "reference", "client_description"]
    date_hierarchy = "created_at"
    readonly_fields = ["description"]

    def get_fields(self, request, obj=None):
        # the words where the stored text would be (readonly_fields would add them last)
        fields = [f for f in super().get_fields(request, obj) if f != "description"]
        return ["description" if f == "client_description" else f for f in fields]

    @admin.display(description=_("client description"), ordering="client_description")
    def description(self, obj):
        """The service's own words in the page's language (the row keeps them as the
        API gives them)."""
        return shown_description(obj.client_description)


@admin.register(Reserve)
class ReserveAdmin(ReadOnlyAdmin):
    ordering = ["-created_at"]
    list_display = ["created_at", "balance", "amount", "state", "reference", "closed_at"]
    list_filter = ["state"]
    search_fields = ["reference"]


@admin.register(BlacklistedAccount)
class BlacklistedAccountAdmin(admin.ModelAdmin):
    ordering = ["-created_at"]
    form = BlacklistForm
    list_display = ["account", "comment", "created_at"]
    search_fields = ["account", "comment"]
