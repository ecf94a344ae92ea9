"""What only orders know about the books, given to finance's ledger check: the money a
trader's Pending Buys hold frozen, and every Completed order's three movements
(merchant, trader, platform) adding up to zero."""

from decimal import Decimal

from django.db.models import Sum

from core.money import quantize_money
from finance.ledger import LedgerMismatch
from finance.models import CREDIT_TYPES, AccountKind, Balance, Side, Transaction

from .models import Order, OrderStatus


def pending_buys_frozen() -> dict:
    """{trader balance id: the amounts of its Pending Buys} (those made before the
    books froze nothing)."""
    held = (
        Order.objects.filter(
            status=OrderStatus.PENDING, side=Side.BUY, trader_id__isnull=False, before_books=False
        )
        .values("trader_id")
        .annotate(s=Sum("amount"))
    )
    by_trader = {row["trader_id"]: quantize_money(row["s"]) for row in held}
    balances = Balance.objects.filter(
        kind=AccountKind.TRADER, trader_id__in=list(by_trader)
    ).values_list("pk", "trader_id")
    return {pk: by_trader[trader_id] for pk, trader_id in balances}


def completed_orders_add_up(*, chunk: int = 1000) -> list[LedgerMismatch]:
    """Each Completed order's movements (every transaction referring to it) sum to
    zero: the merchant's plus the trader's plus the platform's revenue. Orders that
    completed before the books had three sides (no `trader_reward` written) are left
    out: only their merchant moved."""
    problems = []
    completed = Order.objects.filter(status=OrderStatus.COMPLETED, trader_reward__isnull=False)
    ids = completed.order_by("pk")
    ids = [str(pk) for pk in ids.values_list("pk", flat=True)]
    for start in range(0, len(ids), chunk):
        sums: dict = {}
        rows = (
            Transaction.objects.filter(reference__in=ids[start : start + chunk])
            .values("reference", "transaction_type")
            .annotate(s=Sum("amount"))
        )
        for row in rows:
            sign = 1 if row["transaction_type"] in CREDIT_TYPES else -1
            sums[row["reference"]] = sums.get(row["reference"], 0) + sign * quantize_money(row["s"])
        for reference, total in sorted(sums.items()):
            if total != 0:
                problems.append(LedgerMismatch(f"order {reference}", "sum", Decimal(0), total))
    return problems
