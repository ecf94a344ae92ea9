"""The operators' settlement pages: /admin/settlements/new/ (enter one) and
/admin/settlements/ (the waiting ones, approved or rejected by another operator)."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_POST

from core.errors import ServiceError

from . import services
from .models import Settlement, SettlementKind, SettlementStatus

ENTER = "settlements.add_settlement"
DECIDE = "settlements.change_settlement"


class SettlementForm(forms.Form):
    kind = forms.ChoiceField(
        label=pgettext_lazy("settlement", "kind"), choices=SettlementKind.choices
    )
    account = forms.CharField(
        label=pgettext_lazy("settlement", "account"),
        max_length=64,
        help_text=gettext_lazy("The terminal's or the trader's id"),
    )
    amount = forms.CharField(label=pgettext_lazy("settlement", "amount"), max_length=32)
    comment = forms.CharField(
        label=pgettext_lazy("settlement", "comment"), max_length=255, required=False
    )
    money = forms.ChoiceField(
        label=pgettext_lazy("settlement", "money"),
        required=False,
        choices=[
            ("", gettext_lazy("The account's own (live or sandbox)")),
            ("live", gettext_lazy("Live money")),
            ("sandbox", gettext_lazy("The sandbox's test money")),
        ],
        help_text=gettext_lazy(
            "Left as it is, the money of the account's own world; never across."
        ),
    )


def _context(request, **extra) -> dict:
    return {**admin.site.each_context(request), **extra}


@staff_member_required
def settlement_new(request):
    if not request.user.has_perm(ENTER):
        messages.error(request, _("You may not enter settlements."))
        return redirect("admin:index")
    form = SettlementForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            settlement = services.settlement_enter(
                kind=data["kind"],
                account=data["account"],
                amount=data["amount"],
                comment=data["comment"],
                operator=request.user,
                sandbox={"live": False, "sandbox": True}.get(data["money"]),
            )
        except ServiceError as exc:
            errors = getattr(exc, "errors", None) or {}
            field = next((f for f in errors if f in form.fields), "amount")
            form.add_error(field, exc.message)
        else:
            messages.success(
                request,
                _("Settlement %(id)s entered; another operator approves it.")
                % {"id": str(settlement.pk)[:8]},
            )
            return redirect("settlements-list")
    context = _context(request, title=_("New settlement"), form=form)
    status = 400 if request.method == "POST" else 200
    return TemplateResponse(request, "settlements/new.html", context, status=status)


@staff_member_required
def settlement_list(request):
    waiting = list(
        Settlement.objects.filter(status=SettlementStatus.AWAITING_APPROVAL)
        .select_related("terminal", "trader", "entered_by")
        .order_by("-created_at")
    )
    for settlement in waiting:
        settlement.may_decide = request.user.has_perm(DECIDE) and services.may_decide(
            settlement, request.user
        )
    decided = (
        Settlement.objects.exclude(status=SettlementStatus.AWAITING_APPROVAL)
        .select_related("terminal", "trader", "entered_by", "decided_by")
        .order_by("-decided_at")[:50]
    )
    context = _context(request, title=_("Settlements"), waiting=waiting, decided=decided)
    return TemplateResponse(request, "settlements/list.html", context)


def _decide(request, settlement_id, *, approve: bool):
    if not request.user.has_perm(DECIDE):
        messages.error(request, _("You may not decide settlements."))
        return redirect("settlements-list")
    try:
        services.settlement_decide(
            settlement_id=settlement_id, approve=approve, operator=request.user
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Approved.") if approve else _("Rejected."))
    return redirect("settlements-list")


@staff_member_required
@require_POST
def settlement_approve(request, settlement_id):
    return _decide(request, settlement_id, approve=True)


@staff_member_required
@require_POST
def settlement_reject(request, settlement_id):
    return _decide(request, settlement_id, approve=False)
