"""What the bench does inside Django, run in the server's environment as
`python -m bench.django_side COMMAND [ARGS]`; the last line printed is the answer.

  seed                          bench-only data; prints the Bench SBP method's id
  method-id [NAME]              the Bench SBP (or the named) method's id
  add-requisites METHOD TOTAL   requisites on METHOD up to TOTAL
  query-counts METHOD           SQL statements per request, as JSON
  creation-sql METHOD           the SQL one order creation sends, as JSON (bench.sqlreplay)
  profile METHOD N              N creations and N list pages under cProfile, as JSON
  (and bench.django_paths' commands)
"""

import cProfile
import json
import pstats
import subprocess
import sys
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import django

from .django_paths import COMMANDS as PATHS_COMMANDS


def seed() -> str:
    """A bank method with ten requisites, and nine more terminals (Bench 0-7 take the
    hot-balance point's Sells; Bench 8's event log is the events point's alone)."""
    from finance.models import Client, FeeRange, PaymentMethod, Terminal, TerminalMethod
    from finance.services import api_key_issue, balance_credit, new_webhook_secret, terminal_create
    from orders.models import Requisite, Trader

    m = PaymentMethod.objects.create(name="Bench SBP", method_type="SBP", nspk_code="999000000001")
    FeeRange.objects.create(method=m, side="Buy", min_amount=100, max_amount=300000, fee=5)
    FeeRange.objects.create(
        method=m, side="Sell", min_amount=100, max_amount=300000, fee=3, fixed_fee=50
    )
    trader = Trader.objects.get(name="Trader One")
    Requisite.objects.bulk_create(
        [
            Requisite(trader=trader, method=m, holder_name="Bench", account=f"+7998{i:07d}")
            for i in range(10)
        ]
    )
    client = Client.objects.create(name="Bench Merchant")
    terminals = list(Terminal.objects.filter(name="Demo Shop"))
    for i in range(9):
        term = terminal_create(
            client=client, name=f"Bench {i}", webhook_secret=new_webhook_secret()
        )
        api_key_issue(terminal=term, raw=f"bench-key-{i}")
        terminals.append(term)
    for term in terminals:
        TerminalMethod.objects.get_or_create(terminal=term, method=m)
        for other in PaymentMethod.objects.exclude(pk=m.pk):
            TerminalMethod.objects.get_or_create(terminal=term, method=other)
        balance_credit(terminal_id=term.pk, amount=Decimal("1000000000"), description="bench")
    return str(m.pk)


def method_id(name: str = "Bench SBP") -> str:
    from finance.models import PaymentMethod

    return str(PaymentMethod.objects.get(name=name).pk)


def add_requisites(method: str, total: str) -> str:
    from finance.models import PaymentMethod
    from orders.models import Requisite, RequisiteLoad, Trader

    m = PaymentMethod.objects.get(pk=method)
    trader = Trader.objects.get(name="Trader Two")
    n = Requisite.objects.filter(method=m).count()
    made = Requisite.objects.bulk_create(
        [
            Requisite(trader=trader, method=m, holder_name="B", account=f"+7997{i:07d}")
            for i in range(n, int(total))
        ],
        batch_size=2000,
    )
    # With their live figures, as a requisite saved one by one has them from the start
    # (bulk_create skips save()): the point measures the matcher over many requisites,
    # not each one's first use.
    today = datetime.now(UTC).date()
    RequisiteLoad.objects.bulk_create(
        [RequisiteLoad(requisite=r, day=today) for r in made], batch_size=2000
    )
    return str(int(total))


def query_counts(method: str) -> str:
    from django.db import connection
    from django.test import Client

    c = Client()
    h = {"HTTP_X_API_KEY": "demo-shop-key"}
    body = {
        "client_order_id": "q",
        "order_side": "Buy",
        "payment_method_id": method,
        "amount": "99999.99",
    }
    order = c.post("/api/v1/order/", body, content_type="application/json", **h).json()
    calls = {
        "ping": lambda: c.get("/api/v1/ping", **h),
        "balance": lambda: c.get("/api/v1/finance/balance", **h),
        "list": lambda: c.get("/api/v1/order/", **h),
        "lookup": lambda: c.get("/api/v1/order/" + order["id"], **h),
        "search": lambda: c.get("/api/v1/order/search-by-client-order-id", {"id": "q"}, **h),
        "create": lambda: c.post(
            "/api/v1/order/",
            dict(body, amount="99998.99"),
            content_type="application/json",
            **h,
        ),
    }
    counts = {}
    for name, call in calls.items():
        seen = []

        def count(execute, sql, params, many, context, seen=seen):
            seen.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            status = call().status_code
        if status >= 300:
            raise SystemExit(f"{name}: {status}")
        counts[name] = len([q for q in seen if "SAVEPOINT" not in q])
    return json.dumps(counts)


SHOP_KEY = {"HTTP_X_API_KEY": "demo-shop-key"}


def create_order(client, method: str, client_order_id: str, amount: str):
    body = {
        "client_order_id": client_order_id,
        "order_side": "Buy",
        "payment_method_id": method,
        "amount": amount,
    }
    return client.post("/api/v1/order/", body, content_type="application/json", **SHOP_KEY)


def _as_text(param) -> str | None:
    """A bound parameter as text the server reads back into the same value (a JSON
    document as its JSON; NULL stays NULL)."""
    from psycopg.types.json import Json, Jsonb

    if param is None:
        return None
    if isinstance(param, Json | Jsonb):
        return (param.dumps or json.dumps)(param.obj)
    return str(param)


def creation_sql(method: str) -> str:
    """The statements one order creation sends (after a first creation has warmed the
    process and stamped the key's last use), each as PostgreSQL receives it, whether
    it ran inside the creation's transaction and, for a statement the service prepares,
    its text and parameters; the values a replay must make fresh; and
    the method's requisites, among which a replay spreads its orders as the matcher does."""
    from django.db import connection
    from django.test import Client

    from core.prepared import preparing_cursor_class
    from orders.models import Order, Requisite
    from webhooks.models import WebhookEvent

    c = Client()
    create_order(c, method, "sql-warm-up", "4321.01")
    statements = []

    def capture(execute, sql, params, many, context):
        statement = {
            "atomic": connection.in_atomic_block,
            "sql": connection.ops.compose_sql(sql, params),
        }
        if isinstance(context["cursor"].cursor, preparing_cursor_class()):
            # Prepared by the service (core.prepared): replayed prepared, with its
            # parameters bound on the server.
            statement["prepared"] = {"sql": sql, "params": [_as_text(p) for p in params]}
        statements.append(statement)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        answer = create_order(c, method, "sql-capture", "4321.09")
    if answer.status_code != 201:
        raise SystemExit(f"creation: {answer.status_code}")
    order = Order.objects.get(pk=answer.json()["id"])
    values = {
        "order": str(order.pk),
        "order_hex": order.pk.hex,
        "event": WebhookEvent.objects.get(order_id=order.pk).pk,
        "client_order_id": order.client_order_id,
        "amount": str(order.amount),
        "requisite_hex": order.requisite_id.hex,
    }
    requisites = Requisite.objects.filter(method_id=method).values_list("pk", flat=True)
    return json.dumps(
        {"statements": statements, "values": values, "requisites": [r.hex for r in requisites]}
    )


def trimmed(path: str) -> str:
    """A frame's file as a reader finds it: in a package, the stdlib or the project."""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    if "/lib/python3" in path:
        return path.split("/lib/python3", 1)[1].split("/", 1)[-1]
    root = str(Path(__file__).resolve().parent.parent) + "/"
    return path.removeprefix(root)


# The harness's own frames: not the server's time.
HARNESS = ("bench/", "django/test/")


def top_frames(stats: pstats.Stats, key: int, n: int, requests: int) -> list[dict]:
    """The n frames with the most time per request (key 2: their own; 3: with what they
    call), the harness's frames and those holding nine tenths of the whole request or
    more (the handler and the middleware layers around the view) left out."""
    whole = max(row[3] for row in stats.stats.values())
    out = []
    for (path, line, function), (_, calls, tottime, cumtime, _) in sorted(
        stats.stats.items(), key=lambda item: item[1][key], reverse=True
    ):
        where = trimmed(path)
        if where.startswith(HARNESS) or (key == 3 and cumtime >= 0.9 * whole):
            continue
        out.append(
            {
                "frame": function if path == "~" else f"{where}:{line}({function})",
                "calls": calls / requests,
                "tottime_ms": tottime * 1000 / requests,
                "cumtime_ms": cumtime * 1000 / requests,
            }
        )
        if len(out) == n:
            break
    return out


def profile(method: str, n: str = "200") -> str:
    """N order creations and N order list pages (size=50) through Django's test client
    on the bench database: first timed alone (the mean ms per request without the
    profiler), then again under cProfile; for each, the 15 frames with the most time of
    their own and the 15 with the most time including what they call."""
    from django.test import Client

    n = int(n)
    c = Client()
    stamp = time.strftime("%H%M%S")
    amounts = iter(range(1, 10**6))

    def create():
        answer = create_order(c, method, f"prof-{stamp}", f"{2000 + next(amounts) / 100:.2f}")
        if answer.status_code != 201:
            raise SystemExit(f"creation: {answer.status_code}")

    def page():
        answer = c.get("/api/v1/order/", {"size": 50}, **SHOP_KEY)
        if answer.status_code != 200:
            raise SystemExit(f"list: {answer.status_code}")

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    out: dict = {"commit": commit, "requests": n, "when": time.strftime("%Y-%m-%d")}
    for name, call in (("create", create), ("list (size=50)", page)):
        for _ in range(10):  # warm-up
            call()
        began = time.perf_counter()
        for _ in range(n):
            call()
        mean_ms = (time.perf_counter() - began) * 1000 / n
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(n):
            call()
        profiler.disable()
        stats = pstats.Stats(profiler)
        out[name] = {
            "mean_ms": mean_ms,
            "tottime": top_frames(stats, 2, 15, n),
            "cumtime": top_frames(stats, 3, 15, n),
        }
    return json.dumps(out)


COMMANDS = {
    "seed": seed,
    "method-id": method_id,
    "add-requisites": add_requisites,
    "query-counts": query_counts,
    "creation-sql": creation_sql,
    "profile": profile,
    **PATHS_COMMANDS,
}

if __name__ == "__main__":
    django.setup()
    command, *args = sys.argv[1:]
    sys.stdout.write(COMMANDS[command](*args) + "\n")
