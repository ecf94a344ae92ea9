import uuid
from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from core.admin_pages import short_id
from core.errors import ServiceError
from core.files import private_file_response
from finance.models import Balance
from webhooks.admin import order_history

from . import services
from .models import Dispute, DisputeFile
from .selectors import dispute_effect


class ResolveForm(forms.Form):
    comment = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        max_length=2000,
        help_text="Why: kept with the dispute and shown to other operators.",
    )

    def __init__(self, *args, large_claims: list[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if large_claims:
            # A claim far from the order's amount moves that much money: a second,
            # explicit confirmation that names it.
            self.fields["confirm_money"] = forms.BooleanField(
                required=True,
                label="I confirm the money that will move: " + "; ".join(large_claims),
            )


# Accepting a claim that differs from its order's amount by more than this share
# needs the explicit confirmation above.
LARGE_CLAIM_SHARE = Decimal("0.10")


def large_claims(disputes) -> list[str]:
    """What accepting each far-off claim moves, in words, for the confirmation."""
    out = []
    for d in disputes:
        order = d.order
        if d.processed or abs(d.amount - order.amount) <= order.amount * LARGE_CLAIM_SHARE:
            continue
        if order.completable_by_dispute:
            moves = (
                f"completes the order as paid {d.amount} {order.currency}, credited less the fee"
            )
        else:
            moves = "records the decision only; no money moves"
        out.append(
            f"dispute {d.pk} claims {d.amount} {order.currency} on an order of "
            f"{order.amount} {order.currency}: {moves}"
        )
    return out


class DisputeFileInline(admin.TabularInline):
    model = DisputeFile
    extra = 0
    can_delete = False
    fields = ["preview", "content_type", "size", "original_name", "created_at"]
    readonly_fields = fields
    verbose_name = "evidence file"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="evidence")
    def preview(self, obj):
        url = reverse("admin:disputes_evidence", args=[obj.pk])
        return _evidence_link(url, content_type=obj.content_type, label=f"evidence {obj.pk}")


def _evidence_link(url: str, *, content_type: str, label: str):
    """An image previewed (served inline to the operator), anything else a download."""
    if content_type.startswith("image/"):
        return format_html(
            '<a href="{}"><img src="{}?inline=1" alt="{}" '
            'style="max-height:200px;max-width:320px"></a><br><a href="{}">Download</a>',
            url,
            url,
            label,
            url,
        )
    return format_html('<a href="{}">Download</a>', url)


@admin.register(Dispute)
class DisputeAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "order_short_id",
        "client_order_id",
        "terminal",
        "claimed",
        "order_amount",
        "order_status",
        "processed",
        "resolution",
        "created_at",
    ]
    list_filter = ["processed", "resolution", "terminal"]
    search_fields = ["order__client_order_id"]
    search_help_text = "Order id, dispute id or client order id"
    list_select_related = ["order", "terminal"]
    # The queue: what still needs a decision first, newest first within each group.
    ordering = ["processed", "-created_at"]
    inlines = [DisputeFileInline]
    actions = ["accept", "reject"]
    readonly_fields = [
        "order",
        "terminal",
        "claimed_amount",
        "processed",
        "resolution",
        "comment",
        "resolved_by",
        "resolved_at",
        "created_at",
        "order_details",
        "payer_receipts",
        "decide",
        "history",
    ]
    fieldsets = [
        (
            "Dispute",
            {
                "fields": [
                    "order",
                    "terminal",
                    "claimed_amount",
                    "created_at",
                    "processed",
                    "resolution",
                    "comment",
                    "resolved_by",
                    "resolved_at",
                    "decide",
                ]
            },
        ),
        ("Order", {"fields": ["order_details", "history"]}),
        (
            "Payer's receipts",
            {
                "fields": ["payer_receipts"],
                "description": "Attached by the payer on the payment page; evidence beside "
                "the merchant's files, not counted toward their 5.",
            },
        ),
    ]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_search_results(self, request, queryset, search_term):
        """An order id (UUID) or a dispute id (digits) match exactly; anything else is
        looked for in client order ids. A malformed id never reaches the database."""
        base = queryset
        queryset, duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if not term:
            return queryset, duplicates
        extra = Q()
        try:
            extra |= Q(order_id=uuid.UUID(term))
        except ValueError:
            pass
        if term.isascii() and term.isdigit() and int(term) < 2**63:
            extra |= Q(pk=int(term))
        if extra:
            queryset |= base.filter(extra)
        return queryset, duplicates

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # Everything on the page is read-only: decisions go through accept/reject.
        extra_context = {**(extra_context or {}), "show_save": False}
        extra_context["show_save_and_continue"] = False
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description="claimed amount (what the merchant says was paid)")
    def claimed_amount(self, obj):
        return f"{obj.amount} {obj.order.currency} (order amount {obj.order.amount})"

    @admin.display(description="order", ordering="order_id")
    def order_short_id(self, obj):
        return short_id(obj.order_id)

    @admin.display(description="claimed", ordering="amount")
    def claimed(self, obj):
        return obj.amount

    @admin.display(description="decision")
    def decide(self, obj):
        if obj.processed:
            return "-"
        links = [
            (reverse("admin:disputes_resolve", args=[d]) + f"?ids={obj.pk}", label)
            for d, label in (("accept", "Accept…"), ("reject", "Reject…"))
        ]
        return format_html_join(" ", '<a class="button" href="{}">{}</a>', links)

    @admin.display(description="client order id")
    def client_order_id(self, obj):
        return obj.order.client_order_id

    @admin.display(description="order amount")
    def order_amount(self, obj):
        return obj.order.amount

    @admin.display(description="order status")
    def order_status(self, obj):
        return obj.order.shown_status

    @admin.display(description="order")
    def order_details(self, obj):
        o = obj.order
        rows = [
            ("order id", o.pk),
            ("client order id", o.client_order_id),
            ("side", o.side),
            ("status", o.shown_status),
            ("amount", f"{o.amount} {o.currency}"),
            ("fee", o.fee),
            ("fee amount", o.fee_amount),
            ("paid amount", o.paid_amount),
            ("method", o.method),
            ("requisite", f"{o.holder_name} {o.holder_account}"),
            ("customer account", o.customer_account),
            ("trader", o.trader),
            ("created", o.created_at),
            ("expires", o.expires_at),
            ("closed by", o.closed_by),
        ]
        table = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td></tr>",
            ((k, v if v not in (None, "") else "-") for k, v in rows),
        )
        links = [
            (reverse("admin:orders_order_change", args=[o.pk]), "Open the order"),
            (reverse("admin:orders_order_history", args=[o.pk]), "its history"),
            (reverse("admin:webhooks_webhookevent_changelist") + f"?q={o.pk}", "its webhooks"),
            (reverse("admin:disputes_dispute_history", args=[obj.pk]), "the dispute's history"),
        ]
        balance = Balance.objects.filter(terminal_id=o.terminal_id).only("pk").first()
        if balance is not None:
            links.append(
                (reverse("admin:finance_balance_change", args=[balance.pk]), "merchant's balance")
            )
        return format_html(
            "<table>{}</table><p>{}</p>",
            table,
            format_html_join(" · ", '<a href="{}">{}</a>', links),
        )

    @admin.display(description="order history (events and webhook deliveries)")
    def history(self, obj):
        back = reverse("admin:disputes_dispute_change", args=[obj.pk])
        return order_history(order_id=obj.order_id, back=back)

    @admin.display(description="receipts")
    def payer_receipts(self, obj):
        receipts = services.dispute_receipts(dispute=obj)
        if not receipts:
            return "-"
        items = format_html_join(
            "",
            "<li>{} · {} · {} bytes · {}</li>",
            (
                (
                    _evidence_link(
                        reverse("admin:disputes_receipt", args=[r.pk]),
                        content_type=r.content_type,
                        label=f"receipt {r.pk}",
                    ),
                    r.content_type,
                    r.size,
                    r.uploaded_at,
                )
                for r in receipts
            ),
        )
        return format_html("<ul>{}</ul>", items)

    def get_urls(self):
        return [
            path(
                "receipt/<int:pk>/",
                self.admin_site.admin_view(self.receipt_view),
                name="disputes_receipt",
            ),
            path(
                "evidence/<int:pk>/",
                self.admin_site.admin_view(self.evidence_view),
                name="disputes_evidence",
            ),
            path(
                "resolve/<str:decision>/",
                self.admin_site.admin_view(self.resolve_view),
                name="disputes_resolve",
            ),
            *super().get_urls(),
        ]

    def evidence_view(self, request, pk):
        """Evidence is private: it is only ever streamed from storage to a signed-in
        operator (admin_view turns everyone else away), never given a public URL."""
        item = get_object_or_404(DisputeFile.objects.select_related("dispute"), pk=pk)
        if not self.has_view_permission(request, item.dispute):
            raise Http404
        inline = request.GET.get("inline") == "1" and item.content_type.startswith("image/")
        return private_file_response(item.file.name, content_type=item.content_type, inline=inline)

    def receipt_view(self, request, pk):
        """A payer's receipt on an order that has a dispute, for the operator."""
        receipt = services.dispute_receipt(receipt_id=pk)
        if receipt is None or not self.has_view_permission(request, receipt.order.dispute):
            raise Http404
        inline = request.GET.get("inline") == "1" and receipt.content_type.startswith("image/")
        return private_file_response(
            receipt.file.name, content_type=receipt.content_type, inline=inline
        )

    def _start(self, request, queryset, decision):
        ids = ",".join(str(pk) for pk in queryset.values_list("pk", flat=True))
        return redirect(reverse("admin:disputes_resolve", args=[decision]) + f"?ids={ids}")

    @admin.action(description="Accept selected disputes…", permissions=["change"])
    def accept(self, request, queryset):
        return self._start(request, queryset, "accept")

    @admin.action(description="Reject selected disputes…", permissions=["change"])
    def reject(self, request, queryset):
        return self._start(request, queryset, "reject")

    def resolve_view(self, request, decision):
        """The confirmation page of the accept/reject actions: asks for the comment."""
        if decision not in ("accept", "reject") or not self.has_change_permission(request):
            raise Http404
        ids = [int(x) for x in request.GET.get("ids", "").split(",") if x.isdigit()]
        disputes = list(Dispute.objects.filter(pk__in=ids).select_related("order").order_by("pk"))
        if not disputes:
            messages.warning(request, "No disputes selected.")
            return redirect("admin:disputes_dispute_changelist")
        form = ResolveForm(
            request.POST or None,
            large_claims=large_claims(disputes) if decision == "accept" else None,
        )
        if request.method == "POST" and form.is_valid():
            done = 0
            for dispute in disputes:
                try:
                    services.dispute_resolve(
                        dispute=dispute,
                        accept=decision == "accept",
                        comment=form.cleaned_data["comment"],
                        actor=request.user.get_username(),
                    )
                    self.log_change(
                        request,
                        dispute,
                        f"{decision.capitalize()}ed: {form.cleaned_data['comment']}",
                    )
                    done += 1
                except ServiceError as exc:
                    messages.error(request, f"Dispute {dispute.pk}: {exc.message}")
            if done:
                verb = "Accepted" if decision == "accept" else "Rejected"
                messages.success(request, f"{verb} {done} dispute(s).")
            return redirect("admin:disputes_dispute_changelist")
        for dispute in disputes:
            dispute.effect = dispute_effect(dispute=dispute, accept=decision == "accept")
        context = {
            **self.admin_site.each_context(request),
            "title": f"{decision.capitalize()} {len(disputes)} dispute(s)",
            "disputes": disputes,
            "effects": [dispute_effect(dispute=d, accept=decision == "accept") for d in disputes],
            "decision": decision,
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/disputes/resolve.html", context)
