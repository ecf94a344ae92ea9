"""The django side of the wave's new paths (bench.paths): their bench-only data, the
cabinet poll's SQL, and in-process costs. Commands of `python -m bench.django_side`:

  paths-setup                   two methods for the Pending point, two devices' methods,
                                requisites and tokens; prints their ids as JSON
  wide-method                   a method of Demo Shop with no requisite yet (its id)
  cabinet-sessions N            N signed-in cabinet sessions of the demo traders (JSON)
  cabinet-poll-sql              the statements of a cabinet poll answered 304 (JSON)
  inprocess-costs N             ms of a Buy's creation, a merchant withdrawal, an audit
                                entry alone (means); of a Sell's creation beside a
                                settlement entered and decided, and of a close with its
                                entry and without (medians, side by side) (JSON)
"""

import functools
import json
import statistics
import time
from decimal import Decimal

DEVICE_TOKEN = "dev_bench-device-token-00000000000000000000"
CROWDED_TOKEN = "dev_bench-crowded-token-0000000000000000000"
SHOP_KEY = {"HTTP_X_API_KEY": "demo-shop-key"}
URL = "/api/v1/order/"
AUDIT_BATCH = 10
# The closes' rounds for every N of the other in-process points: the entry's cost is a
# difference of two medians some 5 ms wide, a few tenths of a millisecond across, so
# it takes more samples than a mean of the whole path (at 2N + 10 rounds the entry
# read 1.4% of a creation in one full run and 5.8% in the next, on the same code).
CLOSE_ROUNDS_PER_N = 8


def _method(name: str, nspk: str, trader, requisites: int):
    from finance.models import FeeRange, PaymentMethod, Terminal, TerminalMethod
    from orders.models import Requisite

    method = PaymentMethod.objects.create(name=name, method_type="SBP", nspk_code=nspk)
    FeeRange.objects.create(method=method, side="Buy", min_amount=100, max_amount=300000, fee=5)
    TerminalMethod.objects.create(terminal=Terminal.objects.get(name="Demo Shop"), method=method)
    made = Requisite.objects.bulk_create(
        [
            Requisite(
                trader=trader,
                method=method,
                holder_name="Bench",
                account=f"+7996{nspk[-3:]}{i:04d}",
                daily_limit=Decimal(10**9),
            )
            for i in range(requisites)
        ]
    )
    return method, made


def paths_setup() -> str:
    """`Bench Held SBP` and `Bench Quiet SBP` (two requisites each, Trader Three): the
    Pending point fills the first; `Bench Device SBP` and `Bench Crowded SBP` (one
    requisite each, Trader Two), each with a device bound to it: the notifications
    point's orders and messages, the second's requisite holding 3,000 more Pending."""
    from orders.models import Trader
    from traders.devices import device_add

    three, two = Trader.objects.get(name="Trader Three"), Trader.objects.get(name="Trader Two")
    held, _ = _method("Bench Held SBP", "999000000011", three, 2)
    quiet, _ = _method("Bench Quiet SBP", "999000000012", three, 2)
    device_method, requisites = _method("Bench Device SBP", "999000000013", two, 1)
    device_add(trader=two, name="Bench phone", requisites=requisites, raw_token=DEVICE_TOKEN)
    crowded_method, requisites = _method("Bench Crowded SBP", "999000000014", two, 1)
    device_add(trader=two, name="Bench phone 2", requisites=requisites, raw_token=CROWDED_TOKEN)
    return json.dumps(
        {
            "held": str(held.pk),
            "quiet": str(quiet.pk),
            "device": {"method": str(device_method.pk), "token": DEVICE_TOKEN},
            "crowded": {"method": str(crowded_method.pk), "token": CROWDED_TOKEN},
        }
    )


def wide_method() -> str:
    """`Bench Wide SBP`, served to Demo Shop like the bench's method and with no
    requisite yet (the scale point gives it ten thousand): its id."""
    from orders.models import Trader

    method, _ = _method("Bench Wide SBP", "999000000015", Trader.objects.get(name="Trader Two"), 0)
    return str(method.pk)


def cabinet_sessions(n: str) -> str:
    """N sessions as a trader's sign-in leaves them (the user, its backend and hash,
    the trader the cabinet reached), spread over the demo traders with a user."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from orders.models import Trader
    from traders.access import SESSION_TRADER

    traders = list(Trader.objects.filter(user__isnull=False).select_related("user"))
    keys = []
    for i in range(int(n)):
        trader = traders[i % len(traders)]
        session = SessionStore()
        session[SESSION_KEY] = str(trader.user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = trader.user.get_session_auth_hash()
        session[SESSION_TRADER] = str(trader.pk)
        session.create()
        keys.append(session.session_key)
    return json.dumps({"cookie": settings.SESSION_COOKIE_NAME, "sessions": keys})


def cabinet_poll_sql() -> str:
    """A signed-in cabinet's poll: the first answer (200, the list and its ETag), then
    the same poll with `If-None-Match`: its status and every statement it sent."""
    from django.conf import settings
    from django.db import connection
    from django.test import Client

    c = Client()
    c.cookies[settings.SESSION_COOKIE_NAME] = json.loads(cabinet_sessions("1"))["sessions"][0]
    first = c.get("/trader/orders/live/")
    statements = []

    def capture(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        again = c.get("/trader/orders/live/", HTTP_IF_NONE_MATCH=first["ETag"])
    return json.dumps(
        {"first": first.status_code, "again": again.status_code, "statements": statements}
    )


def _mean_ms(call, n: int) -> float:
    for _ in range(5):  # warm-up
        call()
    began = time.perf_counter()
    for _ in range(n):
        call()
    return (time.perf_counter() - began) * 1000 / n


def inprocess_costs(n: str) -> str:
    """Each path through Django's test client (or its service, for the audit entry
    and the closes), one after another in this process: the mean ms of each. "audit"
    is what the entry adds to a close: the audit log's cost on every action."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from audit.models import ActorKind
    from audit.services import audit_record
    from finance.models import PaymentMethod, Terminal
    from orders.models import Order, Trader

    n = int(n)
    counter = iter(range(10**9))
    api = Client()
    method = str(PaymentMethod.objects.get(name="Bench SBP").pk)
    users = get_user_model().objects
    entering, deciding = Client(), Client()
    entering.force_login(users.get(username="operator"))
    deciding.force_login(users.get(username="operator2"))
    trader = str(Trader.objects.get(name="Trader One").pk)
    terminal = Terminal.objects.get(name="Demo Shop")

    def ok(response, status=201):
        if response.status_code != status:
            raise SystemExit(f"{response.request['PATH_INFO']}: {response.status_code}")
        return response

    def sell():
        body = {
            "client_order_id": f"sell-{next(counter)}",
            "order_side": "Sell",
            "payment_method_id": method,
            "amount": "1000.00",
            "customer_account": "+79991234567",
        }
        ok(api.post("/api/v1/order/", body, content_type="application/json", **SHOP_KEY))

    def create():
        body = {
            "client_order_id": f"buy-{next(counter)}",
            "order_side": "Buy",
            "payment_method_id": method,
            "amount": f"{3000 + next(counter) / 100:.2f}",
        }
        return ok(api.post(URL, body, content_type="application/json", **SHOP_KEY)).json()["id"]

    def settlement() -> float:
        """Seconds of the two steps' requests alone: finding the entered settlement
        is the bench's, and the messages each step leaves are read afterwards, as
        the page an operator is sent to shows them (left unread, they would pile up
        in the session and every later step would carry them all)."""
        from settlements.models import Settlement

        began = time.perf_counter()
        ok(
            entering.post(
                "/admin/settlements/new/",
                {"kind": "trader_deposit", "account": trader, "amount": "10.00"},
            ),
            302,
        )
        spent = time.perf_counter() - began
        latest = Settlement.objects.filter(entered_by__username="operator").latest("created_at")
        began = time.perf_counter()
        ok(deciding.post(f"/admin/settlements/{latest.pk}/approve/"), 302)
        spent += time.perf_counter() - began
        for client in (entering, deciding):
            session = client.session
            session.pop("_messages", None)
            session.save()
        return spent

    def withdrawal():
        body = {"amount": "1.00", "destination": "bench account"}
        key = {"HTTP_IDEMPOTENCY_KEY": f"w-{time.time_ns()}-{next(counter)}"}
        ok(
            api.post(
                "/api/v1/finance/withdrawals",
                body,
                content_type="application/json",
                **SHOP_KEY,
                **key,
            )
        )

    def audit():
        """One entry alone, inside an open transaction (ten to a transaction, so a
        tenth of a commit each)."""
        from django.db import transaction

        with transaction.atomic():
            for _ in range(AUDIT_BATCH):
                audit_record(
                    actor_kind=ActorKind.MERCHANT,
                    actor_id=terminal.pk,
                    action="bench.entry",
                    obj=terminal,
                    changes={"amount": Decimal("1.00")},
                )

    def closes() -> tuple[float, float, float]:
        """Round after round: a Buy created (through the API), then confirmed in its
        own transaction, with its audit entry (as a device's notification confirms
        it) or without, alternately (A B, B A): the median ms of the creation and of
        each close, all from the same stretch of time."""
        from django.db import transaction

        from orders.audited import order_act_audited
        from orders.services import order_confirm

        actor, trader = "", ""

        def audited(order_id):
            order_act_audited(
                service=functools.partial(order_confirm, savepoint=False),
                order_id=order_id,
                actor=actor,
                actor_kind=ActorKind.TRADER,
                actor_id=trader,
                action="order.confirm",
                request=None,
                savepoint=False,
            )

        def plain(order_id):
            with transaction.atomic():
                order_confirm(order_id=order_id, actor=actor, savepoint=False)

        took = {create: [], audited: [], plain: []}
        for k in range(CLOSE_ROUNDS_PER_N * n + 10):
            began = time.perf_counter()
            order_id = create()
            created = time.perf_counter() - began
            if not actor:
                trader = str(Order.objects.get(pk=order_id).trader_id)
                actor = f"trader:{trader}"
            pair = (audited, plain) if (k // 2) % 2 == 0 else (plain, audited)
            close = pair[k % 2]
            began = time.perf_counter()
            close(order_id)
            if k >= 10:  # after a warm-up
                took[create].append(created)
                took[close].append(time.perf_counter() - began)
        # medians: a stall of the machine (this one's are long) lands on one sample
        return tuple(statistics.median(took[f]) * 1000 for f in (create, audited, plain))

    def sells_and_settlements() -> tuple[float, float]:
        """Round after round a Sell's creation and a settlement's two steps, taking
        turns to go first (A B, B A): the median ms of each, from the same stretch of
        time (the goal compares them; measured one after the other, a drift of the
        machine between the two stretches decided it)."""

        def timed_sell() -> float:
            began = time.perf_counter()
            sell()
            return time.perf_counter() - began

        took = {timed_sell: [], settlement: []}
        for k in range(n + 5):
            pair = (timed_sell, settlement) if k % 2 == 0 else (settlement, timed_sell)
            for call in pair:
                spent = call()
                if k >= 5:  # after a warm-up
                    took[call].append(spent)
        return tuple(statistics.median(took[f]) * 1000 for f in (timed_sell, settlement))

    costs = {
        name: _mean_ms(call, n)
        for name, call in (
            ("create", create),
            ("withdrawal", withdrawal),
            ("audit", audit),
        )
    }
    costs["sell"], costs["settlement"] = sells_and_settlements()
    costs["audit alone"] = costs.pop("audit") / AUDIT_BATCH
    costs["create beside closes"], costs["close audited"], costs["close"] = closes()
    # what the entry adds to an action: the audit log's cost on every action
    costs["audit"] = costs["close audited"] - costs["close"]
    return json.dumps(costs)


COMMANDS = {
    "paths-setup": paths_setup,
    "wide-method": wide_method,
    "cabinet-sessions": cabinet_sessions,
    "cabinet-poll-sql": cabinet_poll_sql,
    "inprocess-costs": inprocess_costs,
}
