"""The cabinet's balance page: the working deposit exactly as `GET
/api/v1/trader/balance` gives it, then the ledger, newest first, in Russian."""

from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.paginator import Paginator
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from finance.descriptions import shown_description
from finance.models import Transaction

from .access import cabinet_page, trader_required
from .books_api import render_trader_balance

PAGE_SIZE = 20


def _type_names() -> dict:
    return {
        "deposit": _("Deposit"),
        "withdrawal": _("Withdrawal"),
        "order_buy": _("Payment received (debit)"),
        "order_sell": _("Payout made (credit)"),
        "reward": _("Reward"),
    }


@require_GET
@trader_required
def balance_page(request):
    trader = request.trader
    rows = Transaction.objects.filter(balance__trader_id=trader.pk).order_by("-created_at", "-id")
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    names = _type_names()
    zone = ZoneInfo(settings.OPERATOR_TIME_ZONE)
    entries = [
        {
            "id": t.pk,
            "type": t.transaction_type,
            "type_name": names.get(t.transaction_type, t.transaction_type),
            "credit": t.transaction_type in ("deposit", "order_sell", "reward"),
            "amount": t.amount,
            "balance_after": t.balance_after,
            "description": shown_description(t.client_description),
            "created_at": t.created_at.astimezone(zone),
        }
        for t in page.object_list
    ]
    context = {"balance": render_trader_balance(trader.pk), "entries": entries, "page": page}
    return cabinet_page(request, "traders/balance.html", context, active="balance")
