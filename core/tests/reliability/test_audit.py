"""The ledger auditor: Hypothesis stateful testing against a live server over HTTP.

Random sequences of merchant, trader and operator operations (Buy and Sell creation
both ways of naming a method, `unique_amount`, the anti-fraud cap, idempotent repeats
with the same and with a changed body, trader confirm (with other paid amounts) and
decline, merchant cancel, expiry with short TTLs and the sweep, disputes opened,
accepted and rejected, operator top-ups, settlements and merchants' withdrawals
entered and decided) and bursts of real parallel clients (same-amount Buys racing for
requisites, Sells racing for one balance, confirm/decline/cancel racing on one order,
and a burst of everything at once: Buys, a Sell, confirms with other paid amounts, a
cancel, a withdrawal, a trader's settlement, a decision and the sweep; the services
among them run in threads of their own on PostgreSQL). The plain-Python model in
`model.py` predicts every answer and keeps the three sides of the books (the
merchant's balance, each trader's working deposit, the platform's revenue); after
every step each of them, every order (status, amount, fee, paid amount),
`check_ledger` (every account against its ledger, every Completed order's three
sides adding up to zero) and the webhooks a real receiver got (each event exactly
once per delivery id, in sequence, no gap) must agree with it.

The CI run (part of `make test`) repeats rounds of AUDIT_EXAMPLES runs of at most
AUDIT_STEPS steps until AUDIT_MIN_OPS (1,000) operations were checked; `make audit`
sets AUDIT_FOREVER=1 and runs until stopped, printing operations per second; any
failure prints the seed that reproduces it (AUDIT_SEED=<seed>).

Operators' actions (top-up, dispute decision) go through the same services the admin
calls, in this process: the server is the in-process live server, so this is the code
path an operator's click takes, without scraping admin forms.
"""

import logging
import os
import random
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import FlakyStrategyDefinition
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from . import model as m
from .stack import Receiver

pytestmark = pytest.mark.django_db(transaction=True)

SHOP_KEY = "demo-shop-key"
SHOP = {"X-API-Key": SHOP_KEY}
TTL_BUY = float(os.environ.get("AUDIT_TTL_BUY", 3))
TTL_SELL = float(os.environ.get("AUDIT_TTL_SELL", 4))
BUY_AMOUNTS = ["100", "101", "150", "1000", "1001", "5000"] * 3 + ["50", "400000"]
SELL_AMOUNTS = ["500", "1000", "1000", "2000", "20000", "45000", "99000", "100"]
SELL_ACCOUNTS = {
    "SBP": ["+79991234567", "8 (999) 123-45-68", "+79990006666"],
    "BankCard": ["4111111111111111", "4111 1111 1111 1111", "2200000000000665"],
}
USERS = [None, None, "u1", "u2"]
EXAMPLES = int(os.environ.get("AUDIT_EXAMPLES", 4))
STEPS = int(os.environ.get("AUDIT_STEPS", 40))
FOREVER = os.environ.get("AUDIT_FOREVER") == "1"
INDEX = st.integers(0, 2**16)


class Stats:
    """Operations sent to the service (a burst of 8 counts 8)."""

    def __init__(self):
        self.ops = 0
        self.steps = 0
        self.examples = 0
        self.checking = 0.0
        self.mixed = [0, 0]  # bursts of everything at once, the calls they made
        self.cut_short = 0  # rounds Hypothesis ended on its own consistency check
        self.started = time.monotonic()
        self.lock = threading.Lock()

    def add(self, n=1):
        with self.lock:
            self.ops += n

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        return (
            f"audit: {self.ops} operations in {self.steps} steps, {self.examples} runs, "
            f"{elapsed:.0f} s ({self.checking:.0f} s checking), "
            f"{self.ops / max(elapsed, 1e-9):.1f} ops/s; {self.mixed[0]} mixed bursts "
            f"of {self.mixed[1]} calls"
            + (f"; {self.cut_short} rounds cut short" if self.cut_short else "")
        )


def _config():
    """The service's configuration (methods, fee ranges, requisites and whose they
    are), read once: the model predicts state, not configuration."""
    from finance.models import PaymentMethod
    from orders.models import Requisite

    methods = [
        m.Method(
            id=str(pm.pk),
            name=pm.name,
            method_type=pm.method_type,
            nspk_code=pm.nspk_code,
            active=pm.is_active,
            aggregate=pm.is_aggregate,
            ranges=[
                m.Range(
                    r.side, r.min_amount, r.max_amount, r.fee, r.fixed_fee, r.trader_reward_percent
                )
                for r in pm.ranges.all()
            ],
        )
        for pm in PaymentMethod.objects.prefetch_related("ranges")
    ]
    index = {"Trader One": 1, "Trader Two": 2, "Trader Three": 3}
    requisites = [
        m.Requisite(str(r.method_id), r.account, f"demo-trader-{index[r.trader.name]}-key")
        for r in Requisite.objects.select_related("trader").filter(
            is_active=True, trader__is_active=True
        )
        if r.trader.name in index
    ]
    return methods, requisites


TRADER_KEYS = [f"demo-trader-{i}-key" for i in (1, 2, 3)]


def _trader_ids() -> dict:
    """{trader key: trader id} of the model's traders (settlements name the id)."""
    from orders.models import Trader

    names = {"Trader One": TRADER_KEYS[0], "Trader Two": TRADER_KEYS[1]}
    names["Trader Three"] = TRADER_KEYS[2]
    return {names[t.name]: t.pk for t in Trader.objects.filter(name__in=names)}


def _platform() -> Decimal:
    from finance.models import AccountKind, Balance

    row = Balance.objects.filter(kind=AccountKind.PLATFORM, sandbox=False).first()
    return row.available if row else Decimal(0)


def make_machine(base: str, receiver: Receiver, stats: Stats):
    from django.contrib.auth import get_user_model
    from django.db import connection

    methods, requisites = _config()
    trader_ids = _trader_ids()
    operators = [get_user_model().objects.get(username=n) for n in ("operator", "operator2")]
    # Services beside HTTP in one burst: in pool threads on PostgreSQL; on SQLite the
    # live server shares this thread's connection, so they run after the HTTP calls.
    services_in_threads = connection.vendor == "postgresql"

    # One client for every request, bursts included (httpx clients are thread-safe;
    # building one costs ~70 ms of CPU for its TLS context). One connection per
    # request: the live server's keep-alive answers wait on the client's delayed ACK
    # (40 ms a request); a fresh connection does not.
    shared = httpx.Client(
        base_url=base,
        timeout=30,
        headers={"Connection": "close"},
        limits=httpx.Limits(max_connections=32, max_keepalive_connections=0),
    )

    by_name = {meth.name: meth for meth in methods}
    png = _png()
    pool = ThreadPoolExecutor(max_workers=8)

    def post(path, **kwargs):
        return shared.post(path, **kwargs)

    def in_thread(function, *args):
        """Run in a pool thread; its database connection is closed afterwards."""
        from django.db import connections

        try:
            return function(*args)
        finally:
            connections.close_all()

    class Audit(RuleBasedStateMachine):
        """One run: starts from the service's current balance, ends by cancelling
        what it left Pending (so the next run starts with every slot free)."""

        @initialize()
        def start(self):
            self.http = shared
            self.started = datetime.now(UTC).isoformat().replace("+00:00", "Z")
            deposit = self.http.get("/api/v1/finance/balance", headers=SHOP).json()["deposit"]
            self.model = m.Model(
                methods=methods,
                requisites=requisites,
                available=deposit["available"],
                frozen=deposit["frozen"],
                traders={key: self.trader_balance(key) for key in TRADER_KEYS},
                platform=_platform(),
            )
            self.waiting = []  # settlements awaiting a decision: (id, account, amount, withdrawal)
            stats.examples += 1

        def teardown(self):
            http = getattr(self, "http", None)
            if http is None:
                return
            for order in list(self.model.orders.values()):
                if order.status == m.PENDING:
                    http.post(f"/api/v1/order/{order.id}/cancel", headers=SHOP)
            for waiting in getattr(self, "waiting", []):
                self.decide(waiting, approve=False)

        def trader_balance(self, key: str) -> tuple:
            answer = self.http.get("/api/v1/trader/balance", headers={"X-API-Key": key}).json()
            return answer["balance"]["available"], answer["balance"]["frozen"]

        # --- helpers ----------------------------------------------------------------

        def send(self, method, path, **kwargs):
            kwargs.setdefault("headers", SHOP)
            t0 = time.time()
            response = self.http.request(method, path, **kwargs)
            stats.add()
            return response, t0, time.time()

        def settle(self, predict, agrees, t0, t1, what, moments=()):
            """Predict at t0, then at each of `moments` inside (t0, t1), then at t1;
            keep the first model that agrees. The service reads the clock once,
            somewhere in between: `moments` are where the prediction may change."""
            tried = []
            for now in (t0, *sorted(t for t in moments if t0 < t < t1), t1):
                trial = self.model.clone()
                prediction = predict(trial, now)
                if agrees(prediction):
                    self.model = trial
                    return prediction
                tried.append(prediction)
            raise m.Mismatch(f"{what}: the service disagrees with the model {tried}")

        def pick(self, index: int, statuses=None):
            """An order by a drawn index: what is drawn never depends on the state
            (the service's own choices differ between runs of one seed)."""
            orders = [
                o for o in self.model.orders.values() if statuses is None or o.status in statuses
            ]
            return orders[index % len(orders)] if orders else None

        def body(self, data, side: str) -> dict:
            # Mostly requests that should succeed, sometimes each kind of refusal.
            way = data.draw(
                st.sampled_from(["id"] * 4 + ["type"] * 2 + ["type+nspk"] * 3 + ["both", "none"])
            )
            names = (
                ["SBP"] * 3
                + ["Sberbank SBP", "T-Bank SBP", "Bank card"] * 2
                + ["Ozon Bank SBP", "Legacy card"]
                if side == "Buy"
                else ["Sberbank SBP", "VTB SBP", "Bank card"] * 3 + ["SBP"]
            )
            meth = by_name[data.draw(st.sampled_from(names))]
            body = {
                "client_order_id": f"a-{uuid.uuid4().hex[:12]}",
                "order_side": side,
                "amount": data.draw(
                    st.sampled_from(BUY_AMOUNTS if side == "Buy" else SELL_AMOUNTS)
                ),
                "webhook_url": receiver.url,
            }
            if way in ("id", "both"):
                body["payment_method_id"] = meth.id
            if way in ("type", "type+nspk", "both"):
                body["method_type"] = meth.method_type
            if way == "type+nspk":
                body["nspk_code"] = meth.nspk_code or "999999999999"
            if side == "Sell" and data.draw(st.integers(0, 19)) > 0:
                body["customer_account"] = data.draw(
                    st.sampled_from(SELL_ACCOUNTS[meth.method_type])
                )
            if data.draw(st.integers(0, 2)) == 0:
                body["unique_amount"] = True
            user = data.draw(st.sampled_from(USERS))
            if user is not None:
                body["user_id"] = user
            return body

        def create(self, body, headers=SHOP):
            response, t0, t1 = self.send("POST", "/api/v1/order/", json=body, headers=headers)
            self.created(body, response, t0, t1)
            # The holders it expired on its way: the model expires those overdue at the
            # instant it settled on (t0 when that agrees), the service those overdue by
            # its own clock, up to t1; one whose expiry fell between is Expired only there.
            self.expired_meanwhile()
            return response

        def created(self, body, response, t0, t1):
            """Check a creation's answer against the model; a 201 joins the model."""

            def agrees(outcome):
                if outcome.status != response.status_code:
                    return False
                if response.status_code >= 400:
                    answer = response.json()
                    assert answer["success"] is False, answer
                    if outcome.code and answer["code"] != outcome.code:
                        return False
                    if outcome.message and not answer["message"].startswith(outcome.message):
                        return False
                return True

            outcome = self.settle(
                lambda model, now: model.predict_create(body, now),
                agrees,
                t0,
                t1,
                f"create {body} -> {response.status_code} {response.text[:300]}",
            )
            if outcome.status == 201:
                self.model.apply_create(body, outcome, response.json(), t1)

        # --- merchants --------------------------------------------------------------

        @rule(
            data=st.data(),
            sides=st.lists(st.sampled_from(["Buy", "Buy", "Sell"]), min_size=1, max_size=6),
        )
        def create_orders(self, data, sides):
            for side in sides:
                self.create(self.body(data, side))

        @rule(data=st.data(), side=st.sampled_from(["Buy", "Sell"]), same=st.booleans())
        def create_idempotent(self, data, side, same):
            """First use of a key behaves as without one; a repeat with the same body
            is replayed byte for byte and changes nothing; another body is 422."""
            body = self.body(data, side)
            key = f"idem-{uuid.uuid4()}"
            first = self.create(body, headers={**SHOP, "Idempotency-Key": key})
            again = body if same else {**body, "client_order_id": body["client_order_id"] + "x"}
            before = self.model.clone()
            response, _, _ = self.send(
                "POST", "/api/v1/order/", json=again, headers={**SHOP, "Idempotency-Key": key}
            )
            if same:
                m.expect(response.status_code == first.status_code, "replayed status")
                m.expect(response.content == first.content, "replayed body differs")
                m.expect(response.headers.get("Idempotent-Replayed") == "true", "replay header")
            else:
                m.expect(response.status_code == 422, f"reused key: {response.status_code}")
                m.expect(response.json()["code"] == "idempotency_key_reused", response.text)
            self.model = before

        @rule(
            index=INDEX,
            kind=st.sampled_from(["confirm", "decline", "cancel", "stranger"]),
            shift=st.sampled_from([None, None, "-30.00", "12.34", "double"]),
        )
        def transition(self, index, kind, shift):
            order = self.pick(index)
            if order is None:
                return
            if kind == "confirm" and order.side == "Buy" and shift is not None:
                return self.confirm_paid(order, self.paid(order, shift))
            if kind == "cancel":
                path, headers, status = f"/api/v1/order/{order.id}/cancel", SHOP, m.CANCELLED
            else:
                key = order.requisite.trader_key
                if kind == "stranger":
                    key = next(
                        f"demo-trader-{i}-key" for i in (1, 2, 3) if f"demo-trader-{i}-key" != key
                    )
                verb = "confirm" if kind in ("confirm", "stranger") else "cancel"
                path = f"/api/v1/trader/orders/{order.id}/{verb}"
                headers = {"X-API-Key": key}
                status = m.COMPLETED if verb == "confirm" else m.CANCELLED
            response, t0, t1 = self.send("POST", path, headers=headers)
            if kind == "stranger":
                m.expect(response.status_code == 404, f"another trader's order: {response.text}")
                return
            self.settle(
                lambda model, now: model.predict_transition(model.orders[order.id], status, now),
                lambda expected: expected == response.status_code,
                t0,
                t1,
                f"{kind} {order.id} -> {response.status_code}",
            )
            if response.status_code == 200:
                m.expect(response.json()["order"]["status"] == status, response.text)

        def paid(self, order, shift: str) -> Decimal:
            """Another amount received: a little less or more, or past twice (a 400)."""
            if shift == "double":
                return 2 * order.amount + Decimal("0.01")
            return max(order.amount + Decimal(shift), Decimal("0.01"))

        def confirm_path(self, order) -> tuple[str, dict]:
            key = order.requisite.trader_key
            return f"/api/v1/trader/orders/{order.id}/confirm", {"X-API-Key": key}

        def confirm_paid(self, order, paid: Decimal):
            path, headers = self.confirm_path(order)
            response, t0, t1 = self.send(
                "POST", path, headers=headers, json={"paid_amount": str(paid)}
            )
            self.confirmed(order, paid, response, t0, t1)

        def confirmed(self, order, paid: Decimal, response, t0: float, t1: float):
            self.settle(
                lambda model, now: model.predict_transition(
                    model.orders[order.id], m.COMPLETED, now, paid
                ),
                lambda expected: expected == response.status_code,
                t0,
                t1,
                f"confirm {order.id} paid {paid} -> {response.status_code} {response.text[:200]}",
            )
            if response.status_code == 200:
                got = response.json()["order"]
                m.expect(m.money(got["paid_amount"]) == paid, f"paid_amount {got}")

        @rule(index=INDEX, amount=st.sampled_from(["full", "part", "tiny"]))
        def open_dispute(self, index, amount):
            order = self.pick(index)
            if order is None:
                return
            claimed = {
                "full": order.amount,
                "part": m.money(order.amount / 2),
                "tiny": Decimal("1.00"),
            }[amount]
            response, _, _ = self.send(
                "POST",
                "/api/v1/disputes/create",
                data={"order_id": order.id, "amount": str(claimed)},
                files=[("files", ("shot.png", png, "image/png"))],
            )
            expected = self.model.predict_dispute_open(order, claimed)
            m.expect(response.status_code == expected, f"dispute: {response.text[:300]}")
            if expected == 201:
                order.dispute["id"] = response.json()["dispute_id"]

        # --- operators (the admin's services) ---------------------------------------

        @rule(index=INDEX, accept=st.booleans())
        def resolve_dispute(self, index, accept):
            from disputes.models import Dispute
            from disputes.services import dispute_resolve

            open_ = [
                o for o in self.model.orders.values() if o.dispute and not o.dispute["processed"]
            ]
            if not open_:
                return
            order = open_[index % len(open_)]
            dispute_resolve(
                dispute=Dispute.objects.get(pk=order.dispute["id"]),
                accept=accept,
                comment="audit",
                actor="operator",
            )
            stats.add()
            self.model.resolve_dispute(order, accept)

        @rule(amount=st.sampled_from(["100.00", "2500.50", "50000.00", "-700.00"]))
        def top_up(self, amount):
            from finance.models import Terminal
            from finance.services import balance_adjust

            amount = Decimal(amount)
            if amount < 0 and -amount > self.model.available:
                return
            balance_adjust(
                terminal_id=Terminal.objects.get(name="Demo Shop").pk,
                amount=amount,
                description="audit adjustment",
                actor="operator",
            )
            stats.add()
            self.model.top_up(amount)

        @rule(seconds=st.sampled_from([0, 0, 0.1, 0.2, 0.5]))
        def time_passes_and_the_sweep_runs(self, seconds):
            from orders.services import order_expire_due

            time.sleep(seconds)
            t0 = time.time()
            expired = order_expire_due()
            t1 = time.time()
            stats.add()
            self.settle(
                lambda model, now: model.sweep(now),
                lambda n: n == expired,
                t0,
                t1,
                f"sweep expired {expired}",
                # The sweep selects what is due at one moment of the database's clock.
                moments=[o.expires_at for o in self.model.orders.values()],
            )

        # --- settlements and withdrawals (traders.md §19) -----------------------------

        def enter(self, account: str, amount: Decimal, withdrawal: bool):
            """Enter a settlement (a merchant's withdrawal over the API, a trader's
            deposit or withdrawal by the first operator); returns what waits, or None
            when the available balance does not cover a withdrawal (402)."""
            from core.errors import InsufficientFunds
            from settlements.services import settlement_enter

            if account == "merchant":
                response = post(
                    "/api/v1/finance/withdrawals",
                    json={"amount": str(amount), "destination": "audit bank"},
                    headers=SHOP,
                )
                if response.status_code == 402:
                    return None
                m.expect(response.status_code == 201, f"withdrawal: {response.text}")
                return (response.json()["withdrawal"]["id"], account, amount, True)
            kind = "trader_withdrawal" if withdrawal else "trader_deposit"
            try:
                entered = settlement_enter(
                    kind=kind, account=trader_ids[account], amount=amount, operator=operators[0]
                )
            except InsufficientFunds:
                return None
            return (str(entered.pk), account, amount, withdrawal)

        def entered(self, outcome, account: str, amount: Decimal, withdrawal: bool):
            if outcome is None:
                m.expect(withdrawal and not self.model.covers(account, amount), "refused 402")
                return
            m.expect(not withdrawal or self.model.covers(account, amount), "withdrawal let in")
            self.model.settlement_entered(account, amount, withdrawal)
            self.waiting.append(outcome)

        def decide(self, waiting, approve: bool):
            from settlements.services import settlement_decide

            settlement_decide(settlement_id=waiting[0], approve=approve, operator=operators[1])

        def decided(self, waiting, approve: bool):
            _, account, amount, withdrawal = waiting
            self.waiting.remove(waiting)
            self.model.settlement_decided(account, amount, withdrawal, approve)

        @rule(
            account=st.sampled_from(["merchant", *TRADER_KEYS]),
            amount=st.sampled_from(["100.00", "2500.50", "900000.00"]),
            withdrawal=st.booleans(),
        )
        def enter_settlement(self, account, amount, withdrawal):
            amount = Decimal(amount)
            withdrawal = withdrawal or account == "merchant"
            outcome = self.enter(account, amount, withdrawal)
            stats.add()
            self.entered(outcome, account, amount, withdrawal)

        @rule(index=INDEX, approve=st.booleans())
        def decide_settlement(self, index, approve):
            if not self.waiting:
                return
            waiting = self.waiting[index % len(self.waiting)]
            self.decide(waiting, approve)
            stats.add()
            self.decided(waiting, approve)

        # --- parallel clients -------------------------------------------------------

        def burst(self, calls):
            def run(call):
                t0 = time.time()
                response = call()
                return response, t0, time.time()

            results = list(pool.map(lambda call: in_thread(run, call), calls))
            stats.add(len(calls))
            return results

        @rule(
            name=st.sampled_from(["Sberbank SBP", "Bank card", "SBP"]),
            amount=st.sampled_from(["1000", "1001", "1500"]),
            n=st.integers(2, 12),
        )
        def burst_same_amount_buys(self, name, amount, n):
            """n Buys of one amount at once: exactly as many succeed as the method
            has free requisites for it; no requisite gets the amount twice."""
            amount = m.money(amount)
            meth = by_name[name]
            concrete = self.model.concrete(meth)
            soon = time.time() + 5
            if any(
                o.status == m.PENDING and o.expires_at <= soon and o.amount == amount
                for o in self.model.orders.values()
                if o.side == "Buy" and o.requisite.method_id in concrete
            ):
                return  # an overdue holder would make the count depend on timing
            free = [
                r
                for r in self.model.requisites
                if r.method_id in concrete and not self.model.busy(r, amount)
            ]
            body = {
                "order_side": "Buy",
                "payment_method_id": meth.id,
                "amount": str(amount),
                "webhook_url": receiver.url,
            }
            created = self.create_at_once(body, n, wins=min(n, len(free)), refused=500)
            taken = {order.requisite for order in created}
            m.expect(len(taken) == len(created), "a requisite got one amount twice")

        def create_at_once(self, body: dict, n: int, *, wins: int, refused: int) -> list:
            """n creations of one body at once: `wins` succeed, the rest are `refused`;
            each success must be one the model allows, applied in any order."""
            bodies = [
                {**body, "client_order_id": f"burst-{uuid.uuid4().hex[:8]}"} for _ in range(n)
            ]
            results = self.burst(
                [lambda b=b: post("/api/v1/order/", json=b, headers=SHOP) for b in bodies]
            )
            codes = sorted(r.status_code for r, _, _ in results)
            m.expect(codes == [201] * wins + [refused] * (n - wins), f"{body}: {codes}, {wins} fit")
            created = []
            for (response, _, t1), b in zip(results, bodies, strict=True):
                if response.status_code == 201:
                    outcome = self.model.predict_create(b, t1)
                    m.expect(outcome.status == 201, f"the model has no room for {b}")
                    created.append(self.model.apply_create(b, outcome, response.json(), t1))
            return created

        @rule(n=st.integers(2, 10), fits=st.integers(0, 10))
        def burst_sells(self, n, fits):
            """n Sells of one amount at once against one balance: exactly as many as
            the available balance holds succeed, the rest are 402."""
            fits = min(fits, n)
            meth = by_name["Sberbank SBP"]
            fee = next(r for r in meth.ranges if r.side == "Sell")
            if fits == 0:
                amount = Decimal("100000.00")
            else:
                amount = m.money(self.model.available / fits * Decimal("0.97") - fee.fixed)
            amount = min(max(amount, fee.low), fee.high)
            reserve = amount + m.fee_for(amount, fee.rate, fee.fixed)
            room = int(self.model.available // reserve)
            body = {
                "order_side": "Sell",
                "payment_method_id": meth.id,
                "amount": str(amount),
                "customer_account": "+79991234567",
                "webhook_url": receiver.url,
            }
            self.create_at_once(body, n, wins=min(n, room), refused=402)

        @rule(index=INDEX)
        def race_on_one_order(self, index):
            """Two trader confirms, a trader decline and a merchant cancel at once:
            exactly one wins (none if the order is past expiry)."""
            order = self.pick(index, statuses={m.PENDING})
            if order is None or order.expires_at < time.time() + 1:
                return
            key = order.requisite.trader_key
            calls = [
                ("confirm", f"/api/v1/trader/orders/{order.id}/confirm", key),
                ("confirm", f"/api/v1/trader/orders/{order.id}/confirm", key),
                ("decline", f"/api/v1/trader/orders/{order.id}/cancel", key),
                ("cancel", f"/api/v1/order/{order.id}/cancel", SHOP_KEY),
            ]
            results = self.burst(
                [lambda p=p, k=k: post(p, headers={"X-API-Key": k}) for _, p, k in calls]
            )
            codes = [r.status_code for r, _, _ in results]
            m.expect(sorted(codes) == [200, 409, 409, 409], f"race {codes}")
            kind = calls[codes.index(200)][0]
            status = m.COMPLETED if kind == "confirm" else m.CANCELLED
            m.expect(self.model.predict_transition(order, status, time.time() - 1) == 200, "race")

        @rule(
            data=st.data(),
            buys=st.integers(0, 3),
            confirms=st.integers(0, 2),
            sell=st.booleans(),
            cancel=st.booleans(),
            money=st.booleans(),
            sweep=st.booleans(),
        )
        def burst_of_everything(self, data, buys, confirms, sell, cancel, money, sweep):
            """The books under parallel load: Buys, a Sell, confirms with other paid
            amounts, a cancel, a merchant's withdrawal, a trader's settlement entered,
            one waiting settlement decided and the expiry sweep, all at once. Each call
            touches its own order or account, so each answer is predicted on its own;
            then every account and the three sides must agree (the invariant)."""
            now = time.time()
            calm = [
                o
                for o in self.model.orders.values()
                if o.status == m.PENDING and o.expires_at > now + 2
            ]
            chosen = []
            for _ in range(confirms + int(cancel)):
                if calm:
                    chosen.append(calm.pop(data.draw(st.integers(0, len(calm) - 1))))
            to_cancel = chosen.pop() if cancel and chosen else None
            to_confirm = [
                (o, self.paid(o, data.draw(st.sampled_from(["0", "-30.00", "12.34"]))))
                for o in chosen
                if o.side == "Buy"
            ]
            # Buys of amounts no other call frees, each of its own amount.
            touched = {o.amount for o in chosen} | ({to_cancel.amount} if to_cancel else set())
            amounts = [a for a in ("100", "150", "1000", "5000") if m.money(a) not in touched]
            amounts = data.draw(st.permutations(amounts))[:buys]
            bodies = [
                {
                    "client_order_id": f"bb-{uuid.uuid4().hex[:10]}",
                    "order_side": "Buy",
                    "payment_method_id": by_name[
                        data.draw(st.sampled_from(["Sberbank SBP", "Bank card"]))
                    ].id,
                    "amount": amount,
                    "webhook_url": receiver.url,
                }
                for amount in amounts
            ]
            # The merchant's money: a Sell's reserve and a withdrawal fit together.
            sell_body = {
                "client_order_id": f"bs-{uuid.uuid4().hex[:10]}",
                "order_side": "Sell",
                "payment_method_id": by_name["Sberbank SBP"].id,
                "amount": "1000",
                "customer_account": "+79991234567",
                "webhook_url": receiver.url,
            }
            if sell and self.model.available > Decimal("5000"):
                bodies.append(sell_body)
            withdraw = money and self.model.available > Decimal("5000")
            trader = data.draw(st.sampled_from(TRADER_KEYS))
            trader_withdrawal = data.draw(st.booleans())
            decision = (
                (
                    self.waiting[data.draw(st.integers(0, len(self.waiting) - 1))],
                    data.draw(st.booleans()),
                )
                if money and self.waiting
                else None
            )

            http = [
                ("create", b, lambda b=b: post("/api/v1/order/", json=b, headers=SHOP))
                for b in bodies
            ]
            for order, paid in to_confirm:
                path, headers = self.confirm_path(order)
                http.append(
                    (
                        "confirm",
                        (order, paid),
                        lambda p=path, h=headers, x=paid: post(
                            p, headers=h, json={"paid_amount": str(x)}
                        ),
                    )
                )
            if to_cancel is not None:
                http.append(
                    (
                        "cancel",
                        to_cancel,
                        lambda o=to_cancel: post(f"/api/v1/order/{o.id}/cancel", headers=SHOP),
                    )
                )
            amount = Decimal("300.00")
            services = []
            if withdraw:
                services.append(("enter", ("merchant", Decimal("250.50"), True)))
            if money:
                services.append(("enter", (trader, amount, trader_withdrawal)))
            if decision is not None:
                services.append(("decide", decision))
            if sweep:
                services.append(("sweep", None))

            def service(kind, args):
                from orders.services import order_expire_due

                if kind == "enter":
                    return self.enter(*args)
                if kind == "decide":
                    return self.decide(*args)
                return order_expire_due()

            calls = [call for _, _, call in http]
            if services_in_threads:
                calls += [lambda k=k, a=a: service(k, a) for k, a in services]
            results = self.burst(calls)
            if not services_in_threads:
                for kind, args in services:
                    t0 = time.time()
                    results.append((service(kind, args), t0, time.time()))
                stats.add(len(services))
            outcomes = list(zip([(k, x) for k, x, _ in http] + services, results, strict=True))
            stats.mixed[0] += 1
            stats.mixed[1] += len(outcomes)

            # Each answer on its own, in the order they finished.
            for (kind, what), (answer, t0, t1) in sorted(outcomes, key=lambda o: o[1][2]):
                if kind == "create":
                    self.created(what, answer, t0, t1)
                elif kind == "confirm":
                    self.confirmed(what[0], what[1], answer, t0, t1)
                elif kind == "cancel":
                    self.settle(
                        lambda model, now, o=what: model.predict_transition(
                            model.orders[o.id], m.CANCELLED, now
                        ),
                        lambda expected, r=answer: expected == r.status_code,
                        t0,
                        t1,
                        f"cancel {what.id} -> {answer.status_code}",
                    )
                elif kind == "enter":
                    self.entered(answer, *what)
                elif kind == "decide":
                    self.decided(*what)
            # What the sweep (or a creation on its way) expired.
            self.expired_meanwhile()

        def expired_meanwhile(self):
            from orders.models import Order

            pending = [o for o in self.model.orders.values() if o.status == m.PENDING]
            stored = dict(
                Order.objects.filter(pk__in=[o.id for o in pending]).values_list("id", "status")
            )
            for order in pending:
                status = stored[uuid.UUID(order.id)]
                m.expect(status in (m.PENDING, m.EXPIRED), f"{order.id} is {status}")
                if status == m.EXPIRED:
                    m.expect(order.expires_at <= time.time(), f"{order.id} expired early")
                    self.model.expire(order)

        # --- after every step -------------------------------------------------------

        @invariant()
        def agrees_with_model(self):
            """The balance, every order, the ledger check and the webhooks received."""
            stats.steps += 1
            t = time.monotonic()
            self.balance_agrees()
            self.books_agree()
            self.orders_agree()
            self.ledger_clean()
            self.events_agree()
            stats.checking += time.monotonic() - t
            m.expect(receiver.problems == [], f"receiver: {receiver.problems}")

        def caught_up(self, read):
            """What `read()` gives, read again until the model has caught up with every
            expiry the worker's own sweep (its beat) made meanwhile: short TTLs let an
            order expire between the model's last look and the read, and a Sell's
            reserve or a Buy's frozen deposit is then released in the books already."""

            def expired() -> int:
                return sum(o.status == m.EXPIRED for o in self.model.orders.values())

            while True:
                before = expired()
                got = read()
                self.expired_meanwhile()
                if expired() == before:
                    return got

        def balance_agrees(self):
            deposit = self.caught_up(
                lambda: self.http.get("/api/v1/finance/balance", headers=SHOP).json()["deposit"]
            )
            got = (m.money(deposit["available"]), m.money(deposit["frozen"]))
            want = (self.model.available, self.model.frozen)
            m.expect(got == want, f"balance {got} != model {want}")
            m.expect(m.money(deposit["total"]) == self.model.total, "total")

        def books_agree(self):
            """Each trader's working deposit and the platform's revenue."""
            from finance.models import Balance

            rows = self.caught_up(
                lambda: {
                    b.trader_id: (b.available, b.frozen)
                    for b in Balance.objects.filter(trader_id__in=trader_ids.values())
                }
            )
            for key in TRADER_KEYS:
                got = rows[trader_ids[key]]
                want = tuple(self.model.traders[key])
                if got != want:
                    raise m.Mismatch(f"{key}: {got} != model {want}; {self.statuses_apart()}")
            if _platform() != self.model.platform:
                raise m.Mismatch(f"platform {_platform()}; {self.statuses_apart()}")

        def statuses_apart(self) -> str:
            """Where a book disagrees, the orders whose stored status is not the
            model's (an order's status is checked after the books, through the API,
            where an overdue Pending order shows as Expired either way)."""
            from orders.models import Order

            stored = {
                str(pk): status
                for pk, status in Order.objects.filter(pk__in=list(self.model.orders)).values_list(
                    "id", "status"
                )
            }
            apart = [
                f"{o.id} {o.side} {o.amount} on {o.requisite.trader_key}: "
                f"{stored.get(o.id)}, model {o.status}"
                for o in self.model.orders.values()
                if stored.get(o.id) != o.status
            ]
            return f"orders apart: {apart or 'none'}"

        def ledger_clean(self):
            from finance.services import ledger_check

            problems = ledger_check()
            m.expect(problems == [], f"check_ledger: {problems}")

        def orders_agree(self):
            seen: dict[str, dict] = {}
            page = 1
            t0 = time.time()
            while True:
                response = self.http.get(
                    "/api/v1/order/",
                    params={"start_date": self.started, "size": 100, "page": page},
                    headers=SHOP,
                )
                block = response.json()["orders"]
                seen.update({item["id"]: item for item in block["items"]})
                if page >= block["pages"]:
                    break
                page += 1
            t1 = time.time()
            m.expect(set(seen) == set(self.model.orders), "the service's orders != the model's")
            for order in self.model.orders.values():
                item = seen[order.id]
                if order.shown_status(t0) == order.shown_status(t1):
                    m.expect(
                        item["status"] == order.shown_status(t0),
                        f"{order.id} {order.side} is {item['status']}, model {order.shown_status(t0)}",
                    )
                m.expect(m.money(item["amount"]) == order.amount, "amount")
                m.expect(m.money(item["fee_amount"]) == order.fee_amount, "fee_amount")
                paid = item["paid_amount"]
                m.expect(
                    (m.money(paid) if paid is not None else None) == order.paid_amount,
                    f"paid_amount {paid} != {order.paid_amount}",
                )

        def events_agree(self):
            for order in self.model.orders.values():
                got = receiver.events_of(order.id)
                m.expect(
                    [seq for seq, _ in got] == list(range(1, len(got) + 1)),
                    f"{order.id}: a gap in the sequence {got}",
                )
                m.expect(
                    [kind for _, kind in got] == order.events,
                    f"{order.id}: events {got} != model {order.events}",
                )

    Audit.client = shared
    return Audit


def _png() -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture
def audit_server(live_server, settings):
    from conftest import load_demo
    from paymentsvc.celery import app as celery_app

    settings.ORDER_TTL_BUY_SECONDS = TTL_BUY
    settings.ORDER_TTL_SELL_SECONDS = TTL_SELL
    settings.API_RATE_LIMIT = "1000000/min"
    load_demo()
    # The model knows traders 1 to 3, whose deposits cover anything it creates; trader
    # 4 (a 1000.00 deposit, one MTS requisite taking 100 to 600) stays out of its world.
    from orders.models import Trader

    Trader.objects.filter(name="Trader Four").update(is_active=False)
    # Deliveries run on commit in the process that made the change, as a worker
    # would run them a moment later: the receiver has every event before the answer.
    celery_app.conf.task_always_eager = True
    receiver = Receiver(_secret())
    yield live_server.url.replace("localhost", "127.0.0.1"), receiver
    celery_app.conf.task_always_eager = False
    receiver.close()


def _secret() -> str:
    from finance.models import Terminal

    return Terminal.objects.get(name="Demo Shop").webhook_secret


def test_service_agrees_with_its_model(audit_server, capsys):
    """Rounds of AUDIT_EXAMPLES random runs (AUDIT_STEPS steps at most each) until
    AUDIT_MIN_OPS operations were checked, or for ever with AUDIT_FOREVER=1. Round k
    uses seed AUDIT_SEED + k; a failure names its round's seed, and AUDIT_SEED=<that>
    replays that round first."""
    base, receiver = audit_server
    logging.getLogger("httpx").setLevel(logging.WARNING)
    stats = Stats()
    first = int(os.environ.get("AUDIT_SEED") or random.SystemRandom().randrange(2**32))
    target = int(os.environ.get("AUDIT_MIN_OPS", 1000))
    say = _reporter(capsys)
    Audit = make_machine(base, receiver, stats)
    config = settings(
        max_examples=EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        # No shrinking: the service's state carries over from run to run (balances,
        # history), so a shorter replay is not the same test; the seed is the report.
        phases=[Phase.generate],
    )
    say(
        f"audit: starting at seed {first} ({'until stopped' if FOREVER else f'{target} operations'})"
    )
    last_report = time.monotonic()
    round_seed = first
    while FOREVER or stats.ops < target:
        try:
            run_state_machine_as_test(seed(round_seed)(Audit), settings=config)
        except FlakyStrategyDefinition:
            # Hypothesis met a prefix of choices it had drawn before and the machine drew
            # differently after it: the service's state carries over between runs, so a
            # rule's draws can. Every check of the round had passed (a failing check
            # raises its own error); the round ends there and the next seed goes on.
            stats.cut_short += 1
        except BaseException as exc:
            say(stats.line())
            raise AssertionError(
                f"the service disagreed with its model; reproduce with AUDIT_SEED={round_seed}: "
                f"{exc}"
            ) from exc
        round_seed = (round_seed + 1) % 2**32
        if time.monotonic() - last_report > 30:
            say(stats.line())
            last_report = time.monotonic()
    Audit.client.close()
    say(f"{stats.line()}; seeds {first}..{round_seed - 1}")


def _reporter(capsys):
    """Progress lines that reach the terminal even while pytest captures output."""

    def say(line: str) -> None:
        with capsys.disabled():
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    return say
