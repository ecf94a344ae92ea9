"""The order and trader lists as operators use them through a working day: what the
search box finds, the filters beside the list, and the traders' figures for today.

Every search is an exact or range match that an index answers (an id prefix is a
range of UUIDs); nothing here scans the orders table with LIKE."""

import re
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.contrib import admin
from django.db.models import Count, DecimalField, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.admin_pages import uuid_prefix
from core.db import DbNow

from .models import Order, OrderStatus

SEARCH_HELP = _(
    "Short id (8 or more characters), client order id, user id, requisite account or amount"
)
_AMOUNT = re.compile(r"^\d{1,12}([.,]\d{1,2})?$")


def _amount(term: str) -> Decimal | None:
    text = re.sub(r"[\s\u00a0\u202f]", "", term).removesuffix("₽")
    if not _AMOUNT.match(text):
        return None
    try:
        return Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None


def order_search(term: str) -> Q:
    """What the order list's search box finds: an id or its prefix, a client order
    id, a user id, a requisite's or a customer's account, an amount."""
    term = term.strip()
    found = Q(client_order_id__startswith=term) | Q(user_id=term)
    account = re.sub(r"[\s()-]", "", term)
    found |= Q(holder_account=account) | Q(customer_account=account)
    by_id = uuid_prefix(term)
    if by_id is not None:
        found |= by_id
    amount = _amount(term)
    if amount is not None:
        found |= Q(amount=amount) | Q(requested_amount=amount) | Q(paid_amount=amount)
    return found


class ModeFilter(admin.SimpleListFilter):
    title = _("mode")
    parameter_name = "mode"

    def lookups(self, request, model_admin):
        return [("live", _("live")), ("sandbox", _("sandbox"))]

    def queryset(self, request, queryset):
        if self.value() in ("live", "sandbox"):
            return queryset.filter(livemode=self.value() == "live")
        return queryset


class YesNoFilter(admin.SimpleListFilter):
    """A filter that either holds or does not: `condition` says when it holds."""

    condition = Q()

    def lookups(self, request, model_admin):
        return [("yes", _("yes")), ("no", _("no"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(self.condition)
        if self.value() == "no":
            return queryset.exclude(self.condition)
        return queryset


class PayerPaidFilter(YesNoFilter):
    title = _("payer pressed “I have paid”")
    parameter_name = "payer_paid"
    condition = Q(form_session__payment_confirmation_starts_at__isnull=False)


class ReceiptsFilter(YesNoFilter):
    title = _("has receipts")
    parameter_name = "receipts"
    condition = Q(receipts_count__gt=0)


class OverdueFilter(YesNoFilter):
    title = _("Pending past its time")
    parameter_name = "overdue"

    def queryset(self, request, queryset):
        # Built per request: the database's clock now, as the shown status uses it.
        self.condition = Q(status=OrderStatus.PENDING, expires_at__lte=DbNow())
        return super().queryset(request, queryset)


class AgeFilter(admin.SimpleListFilter):
    title = _("order age")
    parameter_name = "age"
    BANDS = {
        "15m": (None, timedelta(minutes=15)),
        "1h": (timedelta(minutes=15), timedelta(hours=1)),
        "1d": (timedelta(hours=1), timedelta(days=1)),
        "old": (timedelta(days=1), None),
    }

    def lookups(self, request, model_admin):
        return [
            ("15m", _("under 15 minutes")),
            ("1h", _("15 minutes to an hour")),
            ("1d", _("an hour to a day")),
            ("old", _("over a day")),
        ]

    def queryset(self, request, queryset):
        if self.value() not in self.BANDS:
            return queryset
        younger, older = self.BANDS[self.value()]
        if younger is not None:
            queryset = queryset.filter(created_at__lte=DbNow() - younger)
        if older is not None:
            queryset = queryset.filter(created_at__gt=DbNow() - older)
        return queryset


def operators_day_start(now: datetime | None = None) -> datetime:
    """Midnight of today in the active zone (the operators' zone on admin pages)."""
    local = timezone.localtime(now)
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


def with_today(traders, *, since: datetime):
    """Traders with today's figures: Completed turnover (paid amounts of orders
    completed since `since`), and the orders created since then that have ended and of
    those, Completed. One subquery per figure, each read off the trader's orders."""
    mine = Order.objects.filter(trader=OuterRef("pk")).order_by().values("trader")
    money = DecimalField(max_digits=20, decimal_places=2)
    turnover = mine.filter(status=OrderStatus.COMPLETED, closed_at__gte=since).annotate(
        total=Sum("paid_amount")
    )
    ended = ~Q(status=OrderStatus.PENDING) | Q(expires_at__lte=DbNow())
    created = mine.filter(created_at__gte=since)
    return traders.annotate(
        turnover_today=Coalesce(
            Subquery(turnover.values("total"), output_field=money), Value(0), output_field=money
        ),
        ended_today=Coalesce(
            Subquery(created.filter(ended).annotate(n=Count("id")).values("n")), Value(0)
        ),
        completed_today=Coalesce(
            Subquery(
                created.filter(status=OrderStatus.COMPLETED).annotate(n=Count("id")).values("n")
            ),
            Value(0),
        ),
    )
