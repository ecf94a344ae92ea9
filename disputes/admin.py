from decimal import Decimal

from django.contrib import admin, messages
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.admin_pages import operator_money, operator_time, short_id, uuid_prefix
from core.admin_site import operator_note
from core.errors import ServiceError
from core.files import private_file_response
from finance.models import Balance
from webhooks.admin import order_history

from . import services
from .admin_files import DisputeFileInline, evidence_link
from .admin_forms import ResolveForm
from .models import Dispute, DisputeFile
from .selectors import dispute_effect

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
            moves = gettext(
                "completes the order as paid {amount} {currency}, credited less the fee"
            ).format(amount=d.amount, currency=order.currency)
        else:
            moves = gettext("records the decision only; no money moves")
        out.append(
            gettext(
                "dispute {id} claims {claimed} {currency} on an order of "
                "{amount} {currency}: {moves}"
            ).format(
                id=d.pk, claimed=d.amount, amount=order.amount, currency=order.currency, moves=moves
            )
        )
    return out


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
    search_help_text = _("Order id or its first 8 characters, dispute id or client order id")
    list_select_related = ["order", "terminal"]
    # Newest first, as every list (the "processed" filter shows what still waits).
    ordering = ["-created_at", "-pk"]
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
            _("Dispute"),
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
        (_("Order"), {"fields": ["order_details", "history"]}),
        (
            _("Payer's receipts"),
            {
                "fields": ["payer_receipts"],
                "description": _(
                    "Attached by the payer on the payment page; evidence beside "
                    "the merchant's files, not counted toward their 5."
                ),
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
        by_order = uuid_prefix(term, field="order_id")
        if by_order is not None:
            extra |= by_order
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

    @admin.display(description=_("claimed amount (what the merchant says was paid)"))
    def claimed_amount(self, obj):
        return gettext("{claimed} {currency} (order amount {amount})").format(
            claimed=operator_money(obj.amount),
            currency=obj.order.currency,
            amount=operator_money(obj.order.amount),
        )

    @admin.display(description=_("order"), ordering="order_id")
    def order_short_id(self, obj):
        return short_id(obj.order_id)

    @admin.display(description=_("claimed"), ordering="amount")
    def claimed(self, obj):
        return obj.amount

    @admin.display(description=_("decision"))
    def decide(self, obj):
        if obj.processed:
            return "-"
        links = [
            (reverse("admin:disputes_resolve", args=[d]) + f"?ids={obj.pk}", label)
            for d, label in (("accept", gettext("Accept…")), ("reject", gettext("Reject…")))
        ]
        return format_html_join(" ", '<a class="button" href="{}">{}</a>', links)

    @admin.display(description=_("client order id"))
    def client_order_id(self, obj):
        return obj.order.client_order_id

    @admin.display(description=_("order amount"))
    def order_amount(self, obj):
        return obj.order.amount

    @admin.display(description=_("order status"))
    def order_status(self, obj):
        return obj.order.shown_status

    @admin.display(description=_("order"))
    def order_details(self, obj):
        o = obj.order
        rows = [
            (gettext("order id"), o.pk),
            (gettext("client order id"), o.client_order_id),
            (gettext("side"), o.side),
            (gettext("status"), o.shown_status),
            (gettext("amount"), f"{o.amount} {o.currency}"),
            (gettext("fee"), o.fee),
            (gettext("fee amount"), o.fee_amount),
            (gettext("paid amount"), o.paid_amount),
            (gettext("method"), o.method),
            (gettext("requisite"), f"{o.holder_name} {o.holder_account}"),
            (gettext("customer account"), o.customer_account),
            (gettext("trader"), o.trader),
            (gettext("created"), operator_time(o.created_at)),
            (gettext("expires"), operator_time(o.expires_at)),
            (gettext("closed by"), o.closed_by),
        ]
        table = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td></tr>",
            ((k, v if v not in (None, "") else "-") for k, v in rows),
        )
        links = [
            (reverse("admin:orders_order_change", args=[o.pk]), gettext("Open the order")),
            (reverse("admin:orders_order_history", args=[o.pk]), gettext("its history")),
            (
                reverse("admin:webhooks_webhookevent_changelist") + f"?q={o.pk}",
                gettext("its webhooks"),
            ),
            (
                reverse("admin:disputes_dispute_history", args=[obj.pk]),
                gettext("the dispute's history"),
            ),
        ]
        balance = Balance.objects.filter(terminal_id=o.terminal_id).only("pk").first()
        if balance is not None:
            links.append(
                (
                    reverse("admin:finance_balance_change", args=[balance.pk]),
                    gettext("merchant's balance"),
                )
            )
        return format_html(
            "<table>{}</table><p>{}</p>",
            table,
            format_html_join(" · ", '<a href="{}">{}</a>', links),
        )

    @admin.display(description=_("order history (events and webhook deliveries)"))
    def history(self, obj):
        back = reverse("admin:disputes_dispute_change", args=[obj.pk])
        return order_history(order_id=obj.order_id, back=back)

    @admin.display(description=_("receipts"))
    def payer_receipts(self, obj):
        receipts = services.dispute_receipts(dispute=obj)
        if not receipts:
            return "-"
        items = format_html_join(
            "",
            "<li>{} · {} · {} " + gettext("bytes") + " · {}</li>",
            (
                (
                    evidence_link(
                        reverse("admin:disputes_receipt", args=[r.pk]),
                        content_type=r.content_type,
                        label=gettext("receipt {id}").format(id=r.pk),
                    ),
                    r.content_type,
                    r.size,
                    operator_time(r.uploaded_at),
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

    @admin.action(description=_("Accept selected disputes…"), permissions=["change"])
    def accept(self, request, queryset):
        return self._start(request, queryset, "accept")

    @admin.action(description=_("Reject selected disputes…"), permissions=["change"])
    def reject(self, request, queryset):
        return self._start(request, queryset, "reject")

    LOGGED = {"accept": _("Accepted: %(comment)s"), "reject": _("Rejected: %(comment)s")}
    TITLES = {
        "accept": lambda n: ngettext("Accept %d dispute", "Accept %d disputes", n),
        "reject": lambda n: ngettext("Reject %d dispute", "Reject %d disputes", n),
    }

    def resolve_view(self, request, decision):
        """The confirmation page of the accept/reject actions: asks for the comment."""
        if decision not in ("accept", "reject") or not self.has_change_permission(request):
            raise Http404
        ids = [int(x) for x in request.GET.get("ids", "").split(",") if x.isdigit()]
        disputes = list(Dispute.objects.filter(pk__in=ids).select_related("order").order_by("pk"))
        if not disputes:
            messages.warning(request, gettext("No disputes selected."))
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
                        operator_note(self.LOGGED[decision], comment=form.cleaned_data["comment"]),
                    )
                    done += 1
                except ServiceError as exc:
                    messages.error(
                        request,
                        gettext("Dispute {id}: {error}").format(id=dispute.pk, error=exc.message),
                    )
            if done:
                if decision == "accept":
                    done_text = ngettext("Accepted %d dispute.", "Accepted %d disputes.", done)
                else:
                    done_text = ngettext("Rejected %d dispute.", "Rejected %d disputes.", done)
                messages.success(request, done_text % done)
            return redirect("admin:disputes_dispute_changelist")
        for dispute in disputes:
            dispute.effect = dispute_effect(dispute=dispute, accept=decision == "accept")
        context = {
            **self.admin_site.each_context(request),
            "title": self.TITLES[decision](len(disputes)) % len(disputes),
            "disputes": disputes,
            "effects": [dispute_effect(dispute=d, accept=decision == "accept") for d in disputes],
            "decision": decision,
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/disputes/resolve.html", context)
