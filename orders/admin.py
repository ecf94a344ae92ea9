from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ERROR_FLAG
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html_join
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from audit.models import ActorKind
from audit.services import actor_parts, audit_record
from core.admin_pages import ReadOnlyPageMixin, short_id
from core.admin_site import operator_note
from core.errors import ServiceError
from core.formats import parse_uuid
from webhooks.admin import order_history

from . import admin_lists as lists
from . import (
    admin_traders,  # noqa: F401 - registers the traders' pages
    services,
)
from .audited import order_act_audited
from .export import orders_csv_response
from .models import Order, OrderStatus


def _related(obj, name: str):
    """The object at the other end of a one-to-one relation, or None."""
    try:
        return getattr(obj, name)
    except ObjectDoesNotExist:
        return None


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
        fields = [
            "closed_by_shown" if f.name == "closed_by" else f.name for f in self.model._meta.fields
        ]
        return ["operator_actions", *fields, "history"]

    @admin.display(description=_("closed by"))
    def closed_by_shown(self, obj):
        """Who closed the order, the kind in words ("operator:anna": оператор anna)."""
        if not obj.closed_by:
            return "-"
        kind, ident = actor_parts(obj.closed_by)
        return f"{ActorKind(kind).label} {ident}".strip()

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
        audit_record(
            actor_kind=ActorKind.OPERATOR,
            actor_id=request.user.get_username(),
            action="orders.export",
            object_type="orders.order",
            changes={"filters": request.GET.dict()},
            request=request,
        )
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

    NOTES = {
        "Completed": _("Completed through the admin"),
        "Cancelled": _("Cancelled through the admin"),
    }
    DONE = {
        "Completed": lambda n: ngettext("Completed %d order.", "Completed %d orders.", n),
        "Cancelled": lambda n: ngettext("Cancelled %d order.", "Cancelled %d orders.", n),
    }

    def _apply(self, request, queryset, service, verb):
        done = 0
        for order in queryset.filter(status=OrderStatus.PENDING):
            try:
                name = request.user.get_username()
                order_act_audited(
                    service=service,
                    order_id=order.pk,
                    actor=f"operator:{name}",
                    actor_kind=ActorKind.OPERATOR,
                    actor_id=name,
                    action="order.confirm" if verb == "Completed" else "order.cancel",
                    request=request,
                )
                self.log_change(request, order, operator_note(self.NOTES[verb]))
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
