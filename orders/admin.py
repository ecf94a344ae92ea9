from django.contrib import admin, messages

from paymentsvc.admin_keys import KeyInline
from paymentsvc.errors import ServiceError

from . import services
from .models import Order, OrderStatus, Requisite, Trader, TraderApiKey


class TraderApiKeyInline(KeyInline):
    model = TraderApiKey


class RequisiteInline(admin.TabularInline):
    model = Requisite
    extra = 0
    fields = ["method", "holder_name", "account", "is_active", "daily_limit", "max_pending"]


@admin.register(Trader)
class TraderAdmin(admin.ModelAdmin):
    list_display = ["name", "is_active", "created_at"]
    list_filter = ["is_active"]
    search_fields = ["name", "id"]
    inlines = [RequisiteInline, TraderApiKeyInline]
    actions = ["generate_api_key", "revoke_api_keys"]

    @admin.action(description="Generate a new trader API key (shown once)")
    def generate_api_key(self, request, queryset):
        for trader in queryset:
            _, raw = services.trader_key_issue(
                trader=trader, name=f"issued by {request.user.get_username()}"
            )
            messages.warning(
                request, f"New key for {trader.name}: {raw} — copy it now, it is not shown again."
            )

    @admin.action(description="Revoke all API keys of the selected traders")
    def revoke_api_keys(self, request, queryset):
        from django.utils import timezone

        count = TraderApiKey.objects.filter(trader__in=queryset, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        messages.success(request, f"Revoked {count} key(s).")


@admin.register(Requisite)
class RequisiteAdmin(admin.ModelAdmin):
    list_display = ["account", "holder_name", "method", "trader", "is_active", "daily_limit"]
    list_filter = ["is_active", "method", "trader"]
    search_fields = ["account", "holder_name", "trader__name"]


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "client_order_id",
        "terminal",
        "side",
        "amount",
        "fee_amount",
        "status",
        "method",
        "trader",
        "created_at",
        "expires_at",
    ]
    list_filter = ["status", "side", "terminal", "method", "trader"]
    search_fields = ["=id", "client_order_id", "holder_account", "customer_account", "user_id"]
    date_hierarchy = "created_at"
    list_select_related = ["terminal", "method", "trader"]
    actions = ["confirm_orders", "cancel_orders"]
    show_full_result_count = False

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def _apply(self, request, queryset, service, verb):
        done = 0
        for order in queryset.filter(status=OrderStatus.PENDING):
            try:
                service(order_id=order.pk, actor=f"operator:{request.user.get_username()}")
                done += 1
            except ServiceError as exc:
                messages.error(request, f"{order.pk}: {exc.message}")
        messages.success(request, f"{verb} {done} order(s).")

    @admin.action(description="Confirm (complete) selected Pending orders")
    def confirm_orders(self, request, queryset):
        self._apply(request, queryset, services.order_confirm, "Completed")

    @admin.action(description="Cancel selected Pending orders")
    def cancel_orders(self, request, queryset):
        self._apply(request, queryset, services.order_cancel, "Cancelled")
