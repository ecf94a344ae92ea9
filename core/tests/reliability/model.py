"""The reference model of the ledger auditor: plain Python, no Django, no database.

It holds what the contract says the service must hold (docs/money.md, docs/orders.md, docs/webhooks.md, docs/disputes.md): one
terminal's balance, every order with its requisite, status, reserve and the events it
must have emitted, and every dispute. Each operation is predicted *before* the service
is asked; the auditor then compares the answer with the prediction and applies it.

Time is the one thing the model cannot know exactly: a request that runs from t0 to
t1 may see an order whose `expires_at` falls between the two as still Pending or as
already overdue. Every prediction therefore takes the instant `now` the service
decided at; the auditor tries t0 and then t1 and accepts the first that agrees.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
PENDING, COMPLETED, CANCELLED, EXPIRED = "Pending", "Completed", "Cancelled", "Expired"
ANTIFRAUD_CAP = 3
UNIQUE_STEPS = 10
DISPUTE_COMPLETABLE = {PENDING, CANCELLED, EXPIRED}
BLACKLIST = {"+79990006666", "2200000000000665"}


def money(value) -> Decimal:
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def fee_for(amount: Decimal, rate: Decimal, fixed: Decimal) -> Decimal:
    return money(amount * rate / Decimal(100)) + money(fixed)


@dataclass(frozen=True)
class Range:
    side: str
    low: Decimal
    high: Decimal
    rate: Decimal
    fixed: Decimal
    reward: Decimal = Decimal(0)  # the trader's reward percent (traders.md §19)


@dataclass
class Method:
    id: str
    name: str
    method_type: str
    nspk_code: str | None
    active: bool
    aggregate: bool
    ranges: list[Range]


@dataclass(frozen=True)
class Requisite:
    method_id: str
    account: str
    trader_key: str


@dataclass
class Order:
    id: str
    client_order_id: str
    side: str
    method_id: str
    initial_method_id: str
    requisite: Requisite
    amount: Decimal
    fee_amount: Decimal
    rate: Decimal
    fixed: Decimal
    reserve: Decimal  # Sell: amount + fee_amount, frozen while Pending; Buy: 0
    expires_at: float
    user_id: str | None
    reward_rate: Decimal = Decimal(0)
    status: str = PENDING  # as stored; shown as Expired once overdue
    paid_amount: Decimal | None = None
    events: list[str] = field(default_factory=lambda: ["order.created"])
    dispute: dict | None = None

    def shown_status(self, now: float) -> str:
        return EXPIRED if self.status == PENDING and self.expires_at <= now else self.status


@dataclass
class Outcome:
    """What the service must answer: a status code and, for errors, the code or the
    start of the message; for a 201, what the model allows it to choose (checked by
    `Model.apply_create`)."""

    status: int
    code: str | None = None
    message: str | None = None
    winner: object = None  # on success: what the model expects to be chosen


class Mismatch(AssertionError):
    pass


class Model:
    """The merchant's balance (`available`, `frozen`), each trader's working deposit
    (`traders`: key -> [available, frozen]) and the platform's revenue (`platform`),
    moved as traders.md §19 says."""

    def __init__(
        self,
        *,
        methods: list[Method],
        requisites: list[Requisite],
        available,
        frozen,
        traders: dict | None = None,
        platform=0,
    ):
        self.methods = {m.id: m for m in methods}
        self.requisites = requisites
        self.available = money(available)
        self.frozen = money(frozen)
        self.traders = {k: [money(a), money(f)] for k, (a, f) in (traders or {}).items()}
        self.platform = money(platform)
        self.orders: dict[str, Order] = {}

    def clone(self) -> Model:
        return copy.deepcopy(self)

    # --- resolving methods --------------------------------------------------------------

    def resolve(self, *, payment_method_id=None, method_type=None, nspk_code=None) -> Method | None:
        active = [m for m in self.methods.values() if m.active]
        if payment_method_id is not None:
            return next((m for m in active if m.id == payment_method_id), None)
        if nspk_code is not None:
            named = [
                m
                for m in active
                if m.method_type == method_type and m.nspk_code == nspk_code and not m.aggregate
            ]
        else:
            named = [m for m in active if m.method_type == method_type and m.nspk_code is None]
        named.sort(key=lambda m: (not m.aggregate, m.name))
        return named[0] if named else None

    def concrete(self, method: Method) -> list[str]:
        if not method.aggregate:
            return [method.id]
        return [
            m.id
            for m in self.methods.values()
            if m.method_type == method.method_type
            and not m.aggregate
            and m.active
            and m.nspk_code is not None
        ]

    def busy(self, requisite: Requisite, amount: Decimal) -> bool:
        return any(
            o.requisite == requisite and o.amount == amount and o.status == PENDING
            for o in self.orders.values()
            if o.side == "Buy"
        )

    # --- creation -----------------------------------------------------------------------

    def predict_create(self, body: dict, now: float) -> Outcome:
        """The answer to POST /api/v1/order/ at `now`, without changing the model
        (except expiring overdue slot holders, which the service does on its way)."""
        side = body["order_side"]
        pmid, mtype, nspk = (
            body.get("payment_method_id"),
            body.get("method_type"),
            body.get("nspk_code"),
        )
        account = body.get("customer_account")
        if pmid is not None and mtype is not None:
            return Outcome(400)
        if pmid is None and mtype is None:
            return Outcome(400, code="payment_method_required")
        if side == "Buy" and account is not None:
            return Outcome(400)
        if side == "Sell" and not account:
            return Outcome(400, message="Customer account is required")
        amount = money(body["amount"])
        method = self.resolve(payment_method_id=pmid, method_type=mtype, nspk_code=nspk)
        if method is None:
            return Outcome(404, message="Payment method not found")
        if method.aggregate and side == "Sell":
            return Outcome(400, code="aggregate_method_buy_only")
        ranges = [r for r in method.ranges if r.side == side]
        fee_range = next((r for r in ranges if r.low <= amount <= r.high), None)
        if fee_range is None:
            return Outcome(409, message="Expectation Failed. Amount for the chosen payment method")
        if side == "Sell" and normalized(account) in BLACKLIST:
            return Outcome(409, message="Customer account is blacklisted")
        steps = UNIQUE_STEPS if body.get("unique_amount") else 1
        amounts = [
            amount + k for k in range(steps) if fee_range.low <= amount + k <= fee_range.high
        ]
        methods = self.concrete(method)
        for attempt in (1, 2):
            user_id = body.get("user_id")
            if user_id is not None:
                held = sum(
                    1
                    for o in self.orders.values()
                    if o.user_id == user_id and o.status == PENDING and o.expires_at > now
                )
                if held >= ANTIFRAUD_CAP:
                    return Outcome(429, message="User has reached the maximum limit")
            if side == "Sell":
                reserve = amount + fee_for(amount, fee_range.rate, fee_range.fixed)
                if reserve > self.available:
                    return Outcome(402, message="Insufficient funds")
            free = self._free(methods, side, amounts)
            if free:
                chosen, requisites = free
                return Outcome(201, winner=(method, fee_range, chosen, requisites))
            if attempt == 2 or side == "Sell":
                break
            overdue = [
                o
                for o in self.orders.values()
                if o.side == "Buy"
                and o.status == PENDING
                and o.expires_at <= now
                and o.requisite.method_id in methods
                and o.amount in amounts
            ]
            if not overdue:
                break
            for order in overdue:
                self.expire(order)
        return Outcome(500, message="No available traders that match order requirements")

    def _free(self, methods, side, amounts):
        candidates = [r for r in self.requisites if r.method_id in methods]
        for chosen in amounts:
            free = [r for r in candidates if side == "Sell" or not self.busy(r, chosen)]
            if free:
                return chosen, free
        return None

    def apply_create(self, body: dict, outcome: Outcome, order: dict, now: float) -> Order:
        """Check a 201 body against the prediction and add the order."""
        method, fee_range, chosen, requisites = outcome.winner
        got = (order["method_id"], order["holder_account"])
        match = [r for r in requisites if (r.method_id, r.account) == got]
        expect(match, f"requisite {got} was not free for {chosen} (free: {requisites})")
        expect(money(order["amount"]) == chosen, f"amount {order['amount']} != {chosen}")
        fee_amount = fee_for(chosen, fee_range.rate, fee_range.fixed)
        expect(money(order["fee_amount"]) == fee_amount, f"fee {order['fee_amount']}")
        expect(order["initial_method_id"] == method.id, "initial_method_id")
        expect(order["status"] == PENDING, f"status {order['status']}")
        expect(order["order_side"] == body["order_side"], "order_side")
        reserve = chosen + fee_amount if body["order_side"] == "Sell" else Decimal(0)
        if reserve:
            self.available -= reserve
            self.frozen += reserve
        else:  # a Buy freezes its amount on the trader's working deposit
            self._trader(match[0].trader_key, -chosen, chosen)
        created = Order(
            id=order["id"],
            client_order_id=body["client_order_id"],
            side=body["order_side"],
            method_id=order["method_id"],
            initial_method_id=method.id,
            requisite=match[0],
            amount=chosen,
            fee_amount=fee_amount,
            rate=fee_range.rate,
            fixed=fee_range.fixed,
            reserve=reserve,
            expires_at=parse_ts(order["expires_at"]),
            user_id=body.get("user_id"),
            reward_rate=fee_range.reward,
        )
        self.orders[created.id] = created
        return created

    # --- transitions --------------------------------------------------------------------

    def expire(self, order: Order) -> None:
        self._close(order, EXPIRED)

    def _trader(self, key: str, available: Decimal, frozen: Decimal = Decimal(0)) -> None:
        held = self.traders.setdefault(key, [Decimal(0), Decimal(0)])
        held[0] += available
        held[1] += frozen

    def _complete(self, order: Order, paid: Decimal) -> None:
        """A Completed order's three sides: the merchant's, the trader's (a Pending
        Buy's frozen amount released in the same move) and the platform's revenue."""
        key = order.requisite.trader_key
        if order.side == "Buy":
            if paid != order.amount:
                order.fee_amount = fee_for(paid, order.rate, order.fixed)
            credit = paid - order.fee_amount
            if credit > 0:
                self.available += credit
            unfreeze = order.amount if order.status == PENDING else Decimal(0)
            reward = fee_for(paid, order.reward_rate, Decimal(0))
            self._trader(key, unfreeze - paid + reward, -unfreeze)
        else:
            self.frozen -= order.reserve
            reward = fee_for(order.amount, order.reward_rate, Decimal(0))
            self._trader(key, order.amount + reward)
        self.platform += order.fee_amount - reward
        order.paid_amount = paid

    def _close(self, order: Order, status: str, paid: Decimal | None = None) -> None:
        assert order.status == PENDING
        if status == COMPLETED:
            self._complete(order, order.amount if paid is None else paid)
        elif order.side == "Sell":
            self.frozen -= order.reserve
            self.available += order.reserve
        else:
            self._trader(order.requisite.trader_key, order.amount, -order.amount)
        order.status = status
        order.events.append(
            {COMPLETED: "order.completed", CANCELLED: "order.cancelled", EXPIRED: "order.expired"}[
                status
            ]
        )

    def predict_transition(
        self, order: Order, status: str, now: float, paid: Decimal | None = None
    ) -> int:
        """Trader confirm (a Buy's with another `paid`: above zero, at most twice the
        amount, else 400) / cancel or merchant cancel: 200 or 409 (an overdue order
        expires on the way and answers 409). Applies the change."""
        if order.status != PENDING:
            return 409
        if order.expires_at <= now:
            self.expire(order)
            return 409
        if paid is not None and not (0 < paid <= 2 * order.amount):
            return 400
        self._close(order, status, paid)
        return 200

    def sweep(self, now: float) -> int:
        due = [o for o in self.orders.values() if o.status == PENDING and o.expires_at <= now]
        for order in due:
            self.expire(order)
        return len(due)

    # --- disputes and operators ---------------------------------------------------------

    def predict_dispute_open(self, order: Order, amount: Decimal) -> int:
        if order.dispute is not None:
            return 400
        order.dispute = {"amount": money(amount), "processed": False, "resolution": None}
        order.events.append("dispute.created")
        return 201

    def resolve_dispute(self, order: Order, accept: bool) -> None:
        dispute = order.dispute
        assert dispute is not None and not dispute["processed"]
        if accept and order.side == "Buy" and order.status in DISPUTE_COMPLETABLE:
            paid = dispute["amount"]
            order.fee_amount = fee_for(paid, order.rate, order.fixed)
            self._complete(order, paid)
            order.status = COMPLETED
            order.events.append("order.completed")
        dispute["processed"] = True
        dispute["resolution"] = "accepted" if accept else "rejected"
        order.events.append("dispute.processed")

    def top_up(self, amount: Decimal) -> None:
        self.available += amount

    # --- settlements (traders.md §19): `account` is "merchant" or a trader's key -----

    def _account(self, account: str) -> list:
        if account == "merchant":
            return [self.available, self.frozen]
        return self.traders.setdefault(account, [Decimal(0), Decimal(0)])

    def _set(self, account: str, figures: list) -> None:
        if account == "merchant":
            self.available, self.frozen = figures
        else:
            self.traders[account] = figures

    def covers(self, account: str, amount: Decimal) -> bool:
        return self._account(account)[0] >= amount

    def settlement_entered(self, account: str, amount: Decimal, withdrawal: bool) -> None:
        """A withdrawal is frozen at entry; a deposit waits with nothing moved."""
        if withdrawal:
            available, frozen = self._account(account)
            self._set(account, [available - amount, frozen + amount])

    def settlement_decided(
        self, account: str, amount: Decimal, withdrawal: bool, approve: bool
    ) -> None:
        available, frozen = self._account(account)
        if withdrawal:
            frozen -= amount
            if not approve:
                available += amount
        elif approve:
            available += amount
        self._set(account, [available, frozen])

    @property
    def total(self) -> Decimal:
        return self.available + self.frozen


def normalized(account: str) -> str:
    """The blacklist compares accounts as the service stores them (docs/orders.md#matching)."""
    digits = "".join(ch for ch in account if ch.isdigit())
    if account.lstrip().startswith(("+7", "7", "8")) and len(digits) == 11:
        return "+7" + digits[1:]
    return digits


def expect(condition, message: str) -> None:
    if not condition:
        raise Mismatch(message)


def parse_ts(value: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
