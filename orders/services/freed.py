"""What expiring overdue orders would free, counted by availability without expiring
them (orders/services/placement.py: creation expires them and matches again)."""

from decimal import Decimal
from typing import TYPE_CHECKING

from finance.models import Side

from ..models import Order
from . import load

if TYPE_CHECKING:
    from .matching import Candidate


class Freed:
    """What expiring the given overdue orders would free, for availability to count
    without expiring them (creation expires them and matches again): each one's
    (requisite, amount) slot, its place under max_pending, its amount in today's
    turnover, and a Buy's frozen amount on its trader (none for a Buy made before
    the books)."""

    def __init__(self, order_ids):
        self.slots, self.pending, self.turnover, self.deposit = {}, {}, {}, {}
        today = load.utc_day()
        rows = Order.objects.filter(pk__in=list(order_ids)).values_list(
            "requisite_id", "trader_id", "side", "amount", "created_at", "before_books"
        )
        for requisite, trader, side, amount, created_at, before_books in rows:
            self.pending[requisite] = self.pending.get(requisite, 0) + 1
            if load.utc_day(created_at) == today:
                self.turnover[requisite] = self.turnover.get(requisite, 0) + amount
            if side == Side.BUY:
                self.slots.setdefault(requisite, set()).add(amount)
                if trader is not None and not before_books:
                    self.deposit[trader] = self.deposit.get(trader, 0) + amount

    def deposit_floor(self, low: Decimal) -> Decimal:
        return low - max(self.deposit.values(), default=0)

    def apply(self, row: "Candidate") -> None:
        row.busy -= self.slots.get(row.pk, set())
        row.pending = max(0, row.pending - self.pending.get(row.pk, 0))
        row.turnover = max(Decimal(0), row.turnover - self.turnover.get(row.pk, 0))
        if row.available is not None:
            row.available += self.deposit.get(row.trader_id, 0)
