"""The ledger auditor: Hypothesis stateful testing against a live server over HTTP.

Random sequences of merchant, trader and operator operations (Buy and Sell creation
both ways of naming a method, `unique_amount`, the anti-fraud cap, idempotent repeats
with the same and with a changed body, trader confirm and decline, merchant cancel,
expiry with short TTLs and the sweep, disputes opened, accepted and rejected, operator
top-ups and withdrawals) and bursts of real parallel clients (same-amount Buys racing
for requisites, Sells racing for one balance, confirm/decline/cancel racing on one
order). The plain-Python model in `model.py` predicts every answer; after every step
the balance, every order (status, amount, fee, paid amount), `check_ledger` and the
webhooks a real receiver got (each event exactly once per delivery id, in sequence,
no gap) must agree with it.

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
            f"{self.ops / max(elapsed, 1e-9):.1f} ops/s"
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
                m.Range(r.side, r.min_amount, r.max_amount, r.fee, r.fixed_fee)
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


def make_machine(base: str, receiver: Receiver, stats: Stats):
    methods, requisites = _config()

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
            )
            stats.examples += 1

        def teardown(self):
            http = getattr(self, "http", None)
            if http is None:
                return
            for order in list(self.model.orders.values()):
                if order.status == m.PENDING:
                    http.post(f"/api/v1/order/{order.id}/cancel", headers=SHOP)

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
            return response

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

        @rule(index=INDEX, kind=st.sampled_from(["confirm", "decline", "cancel", "stranger"]))
        def transition(self, index, kind):
            order = self.pick(index)
            if order is None:
                return
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

        # --- after every step -------------------------------------------------------

        @invariant()
        def agrees_with_model(self):
            """The balance, every order, the ledger check and the webhooks received."""
            stats.steps += 1
            t = time.monotonic()
            self.balance_agrees()
            self.orders_agree()
            self.ledger_clean()
            self.events_agree()
            stats.checking += time.monotonic() - t
            m.expect(receiver.problems == [], f"receiver: {receiver.problems}")

        def balance_agrees(self):
            deposit = self.http.get("/api/v1/finance/balance", headers=SHOP).json()["deposit"]
            got = (m.money(deposit["available"]), m.money(deposit["frozen"]))
            want = (self.model.available, self.model.frozen)
            m.expect(got == want, f"balance {got} != model {want}")
            m.expect(m.money(deposit["total"]) == self.model.total, "total")

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
