"""`make bench`: the production stack on this machine, measured side by side.

Starts gunicorn (gunicorn.conf.py) and a Celery worker on PostgreSQL + Redis, loads
them from this separate process with an asyncio HTTP client, and writes
docs/benchmarks.md (bench/notes.md is appended to it: the gaps and what each change
bought). Every figure is a ratio to a baseline measured in the same run.

Settings: BENCH_SECONDS (per point, default 6), BENCH_MEMORY_REQUESTS (20000),
BENCH_PORT (18080; the webhook receiver takes the next port), BENCH_DB, BENCH_PG,
BENCH_REDIS. `python bench/run.py --report` writes the report again from the last
run's figures (var/bench/results.pickle), e.g. after editing bench/notes.md.
"""

import asyncio
import json
import os
import pickle
import secrets
import signal
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PORT = int(os.environ.get("BENCH_PORT", "18080"))
BASE = f"http://127.0.0.1:{PORT}"
DB = os.environ.get("BENCH_DB", "paymentsvc_bench_run")
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/7")
SECONDS = float(os.environ.get("BENCH_SECONDS", "6"))
MEMORY_REQUESTS = int(os.environ.get("BENCH_MEMORY_REQUESTS", "20000"))
SHOP = {"X-API-Key": "demo-shop-key"}

ENV = {
    **os.environ,
    "DJANGO_SETTINGS_MODULE": "paymentsvc.settings",
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "SECURE_SSL_REDIRECT": "false",
    "ALLOWED_HOSTS": "*",
    "DATABASE_URL": f"{PG}/{DB}",
    "CELERY_BROKER_URL": REDIS,
    "CACHE_URL": REDIS,
    "API_RATE_LIMIT": "1000000000/min",
    "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
    "PUBLIC_BASE_URL": BASE,
    "VAR_DIR": str(ROOT / "var" / "bench"),
    "GUNICORN_BIND": f"127.0.0.1:{PORT}",
}
PROCESSES: list[subprocess.Popen] = []
RESULTS = ROOT / "var" / "bench" / "results.pickle"


def manage(*args, check=True):
    return subprocess.run(
        [PY, "manage.py", *args], cwd=ROOT, env=ENV, check=check, capture_output=True, text=True
    )


def shell(code: str) -> str:
    out = manage("shell", "--verbosity", "0", "-c", code).stdout.strip()
    return out.splitlines()[-1] if out else ""


def start(cmd: list[str]) -> subprocess.Popen:
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    PROCESSES.append(proc)
    return proc


def stop_all():
    for proc in PROCESSES:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for proc in PROCESSES:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def rss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


# --- load generation ---------------------------------------------------------------------


async def load(make_request, concurrency: int, seconds: float = SECONDS) -> dict:
    """Closed-loop load: `concurrency` clients, each sending as soon as it has an answer."""
    latencies: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=BASE, limits=limits, timeout=30) as client:
        counter = iter(range(10**9))

        async def worker():
            nonlocal errors
            while time.perf_counter() < stop_at:
                started = time.perf_counter()
                response = await make_request(client, next(counter))
                latencies.append(time.perf_counter() - started)
                if response.status_code >= 400:
                    errors += 1

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - began
    latencies.sort()
    return {
        "rps": len(latencies) / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[int(len(latencies) * 0.99) - 1] * 1000
        if len(latencies) > 1
        else latencies[0] * 1000,
        "n": len(latencies),
        "errors": errors,
        "latencies": latencies,
    }


def run(make_request, concurrency, seconds=SECONDS):
    return asyncio.run(load(make_request, concurrency, seconds))


def merge(parts: list[dict]) -> dict:
    """One result from several slices of the same load."""
    n = sum(p["n"] for p in parts)
    elapsed = sum(p["n"] / p["rps"] for p in parts)
    latencies = sorted(x for p in parts for x in p["latencies"])
    return {
        "rps": n / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[max(int(len(latencies) * 0.99) - 1, 0)] * 1000,
        "n": n,
        "errors": sum(p["errors"] for p in parts),
    }


def side_by_side(target, baseline, concurrency, seconds=SECONDS, rounds=3) -> tuple[dict, dict]:
    """The target and its baseline in alternating slices, so that whatever else the
    machine is doing at the time weighs on both alike."""
    slices: dict[str, list] = {"target": [], "baseline": []}
    for _ in range(rounds):
        slices["target"].append(run(target, concurrency, seconds / rounds))
        slices["baseline"].append(run(baseline, concurrency, seconds / rounds))
    return merge(slices["target"]), merge(slices["baseline"])


def ping(client, i):
    return client.get("/api/v1/ping", headers=SHOP)


def balance(client, i):
    return client.get("/api/v1/finance/balance", headers=SHOP)


def order_list(client, i):
    return client.get("/api/v1/order/", headers=SHOP)


def lookup(order_id):
    return lambda client, i: client.get(f"/api/v1/order/{order_id}", headers=SHOP)


def search(client_order_id):
    return lambda client, i: client.get(
        "/api/v1/order/search-by-client-order-id", params={"id": client_order_id}, headers=SHOP
    )


class Amounts:
    """Distinct amounts, so no two Pending Buys ever want one (requisite, amount)."""

    def __init__(self, start: int):
        self.next = start

    def take(self) -> str:
        self.next += 1
        return f"{100 + self.next / 100:.2f}"


AMOUNTS = Amounts(0)


def create_buy(method_id, key="demo-shop-key"):
    def make(client, i):
        body = {
            "client_order_id": f"b{i}",
            "order_side": "Buy",
            "payment_method_id": method_id,
            "amount": AMOUNTS.take(),
        }
        return client.post("/api/v1/order/", json=body, headers={"X-API-Key": key})

    return make


def create_sell(method_id, keys):
    def make(client, i):
        body = {
            "client_order_id": f"s{i}",
            "order_side": "Sell",
            "payment_method_id": method_id,
            "amount": "1000.00",
            "customer_account": "+79991234567",
        }
        return client.post("/api/v1/order/", json=body, headers={"X-API-Key": keys[i % len(keys)]})

    return make


# --- the run -----------------------------------------------------------------------------------


def setup():
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", "-U", "postgres", DB], check=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", DB], check=True)
    manage("migrate", "--noinput")
    manage("seed_demo", "--force")
    # Bench-only data: a bank method with ten requisites, and eight more terminals.
    shell(BENCH_DATA)
    analyze()


def analyze() -> None:
    """Fresh planner statistics and visibility map, as a live database has them
    (autovacuum would get there too, but not within a short run): without the map an
    index-only COUNT visits the heap for every row, as no settled table makes it."""
    psql("VACUUM ANALYZE")


def psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", DB, "-q", "-c", sql], check=True
    )


BENCH_DATA = """
from decimal import Decimal
from finance.models import Client, PaymentMethod, FeeRange, TerminalMethod, Terminal, Balance
from finance.services import terminal_create, api_key_issue, balance_credit, new_webhook_secret
from orders.models import Requisite, Trader
m = PaymentMethod.objects.create(name="Bench SBP", method_type="SBP", nspk_code="999000000001")
FeeRange.objects.create(method=m, side="Buy", min_amount=100, max_amount=300000, fee=5)
FeeRange.objects.create(method=m, side="Sell", min_amount=100, max_amount=300000, fee=3, fixed_fee=50)
t = Trader.objects.get(name="Trader One")
Requisite.objects.bulk_create([Requisite(trader=t, method=m, holder_name="Bench", account=f"+7998{i:07d}") for i in range(10)])
c = Client.objects.create(name="Bench Merchant")
terminals = list(Terminal.objects.filter(name="Demo Shop"))
for i in range(8):
    term = terminal_create(client=c, name=f"Bench {i}", webhook_secret=new_webhook_secret())
    api_key_issue(terminal=term, raw=f"bench-key-{i}")
    terminals.append(term)
for term in terminals:
    TerminalMethod.objects.get_or_create(terminal=term, method=m)
    for other in PaymentMethod.objects.exclude(pk=m.pk):
        TerminalMethod.objects.get_or_create(terminal=term, method=other)
    balance_credit(terminal_id=term.pk, amount=Decimal("1000000000"), description="bench")
print(m.pk)
"""


def bulk_orders(total: int) -> None:
    """Historic Completed orders for Demo Shop, spread over a year, straight in SQL."""
    sql = f"""
    INSERT INTO orders_order (id, terminal_id, client_order_id, currency, side, method_id, initial_method_id,
      status, requested_amount, amount, fee, fixed_fee, fee_amount, holder_name, holder_account,
      event_sequence, created_at, updated_at, expires_at, closed_by)
    SELECT gen_random_uuid(), t.id, 'hist-' || g, 'RUB', 'Buy', m.id, m.id, 'Completed', 1000, 1000 + (g % 5000),
      5, 0, 50, 'H', '+70000000000', 2, now() - (g % 525600) * interval '1 minute' - interval '1 hour',
      now() - (g % 525600) * interval '1 minute', now(), 'bench'
    FROM generate_series((SELECT count(*) FROM orders_order) + 1, {total}) g,
      (SELECT id FROM finance_terminal WHERE name = 'Demo Shop') t,
      (SELECT id FROM finance_paymentmethod WHERE name = 'Sberbank SBP') m;
    """
    psql(sql)
    psql("VACUUM ANALYZE orders_order")  # on its own: VACUUM runs outside a transaction


def settle_orders() -> None:
    """Close the Pending orders earlier points left (the ledger is not kept right: the
    bench balances are far larger than any run needs), and move them out of today: every
    creation point starts as a live system does, where orders are paid or expire within
    minutes, instead of on requisites already holding the previous points' orders."""
    sql = """
    UPDATE orders_order SET status = 'Completed', created_at = created_at - interval '2 days'
    WHERE status = 'Pending' AND client_order_id <> 'lookup-me';
    """
    psql(sql)


def add_requisites(method_id: str, total: int) -> None:
    shell(
        "from orders.models import Requisite, Trader; from finance.models import PaymentMethod; "
        f"m = PaymentMethod.objects.get(pk='{method_id}'); t = Trader.objects.get(name='Trader Two'); "
        f"n = Requisite.objects.filter(method=m).count(); "
        f"Requisite.objects.bulk_create([Requisite(trader=t, method=m, holder_name='B', account=f'+7997{{i:07d}}') for i in range(n, {total})], batch_size=2000)"
    )
    analyze()


class Receiver:
    def __init__(self):
        self.count = 0
        self.first = self.last = 0.0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                now = time.perf_counter()
                receiver.first = receiver.first or now
                receiver.last = now
                receiver.count += 1
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", PORT + 1), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def reset(self):
        self.count, self.first, self.last = 0, 0.0, 0.0


def wait_ready():
    for _ in range(120):
        try:
            if httpx.get(f"{BASE}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit("the server did not become ready")


GUNICORN = [PY, "-m", "gunicorn", "-c", "gunicorn.conf.py"]
# Worker recycling is off for the bench: a recycled worker would hide a leak from the
# memory figure and put start-up time into a throughput point.
NO_RECYCLING = ["--max-requests", "0"]
# (workers, threads) tried against each other; the first is gunicorn.conf.py's default
# on this machine (cores + 1 workers x 4 threads).
CONFIGS = [(os.cpu_count() + 1, 4), (2, 4), (2, 8), (os.cpu_count() + 1, 1), (5, 1)]


def start_web(*flags: str) -> subprocess.Popen:
    web = start([*GUNICORN, *NO_RECYCLING, *flags, "paymentsvc.wsgi"])
    wait_ready()
    return web


def stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    PROCESSES.remove(proc)


def gunicorn_sweep(method_id: str) -> dict:
    """Order creation against ping at 32 clients under each worker x thread layout."""
    sweep = {}
    for workers, threads in CONFIGS:
        web = start_web("--workers", str(workers), "--threads", str(threads))
        settle_orders()
        try:
            run(ping, 8, 1)  # warm-up
            sweep[(workers, threads)] = side_by_side(
                create_buy(method_id), ping, 32, seconds=SECONDS * 2 / 3, rounds=2
            )
        finally:
            stop(web)
    return sweep


def main():
    results: dict = {"when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}
    began = time.perf_counter()
    setup()
    method_id = shell(
        "from finance.models import PaymentMethod; print(PaymentMethod.objects.get(name='Bench SBP').pk)"
    )
    results["queries"] = query_counts(method_id)
    results["configs"] = gunicorn_sweep(method_id)
    web = start_web()
    try:
        run(ping, 8, 2)  # warm-up
        throughput = {}
        for c in (1, 8, 32):
            settle_orders()
            throughput[("create", c)], throughput[("ping:create", c)] = side_by_side(
                create_buy(method_id), ping, c
            )
        seed = httpx.post(
            f"{BASE}/api/v1/order/",
            headers=SHOP,
            json={
                "client_order_id": "lookup-me",
                "order_side": "Buy",
                "payment_method_id": method_id,
                "amount": AMOUNTS.take(),
            },
        ).json()
        # The creation points just added thousands of rows newer than the planner's
        # statistics; autovacuum refreshes them within a minute or so on a live system.
        analyze()
        for c in (1, 8, 32):
            for name, make in (
                ("balance", balance),
                ("list", order_list),
                ("lookup", lookup(seed["id"])),
            ):
                throughput[(name, c)], throughput[(f"ping:{name}", c)] = side_by_side(make, ping, c)
        results["throughput"] = throughput
        results["client_cpu"] = client_cpu_share()

        many = [f"bench-key-{i}" for i in range(8)]
        hot = {}
        for label, keys in (("one", ["demo-shop-key"]), ("many", many)):
            settle_orders()
            hot[label] = run(create_sell(method_id, keys), 16)
        results["hot_balance"] = hot

        scale = {}
        for label, total in (("10k", 10_000), ("1M", 1_000_000)):
            bulk_orders(total)
            scale[label] = {
                "list": run(order_list, 4),
                "search": run(search("hist-5000"), 4),
                "lookup": run(lookup(seed["id"]), 4),
            }
        results["scale"] = scale

        requisites = {}
        for label, total in (("10", 10), ("10k", 10_000)):
            add_requisites(method_id, total)
            settle_orders()
            requisites[label] = run(create_buy(method_id), 8)
        results["requisites"] = requisites

        receiver = Receiver()
        results["webhooks"], worker = webhook_rates(method_id, receiver)

        web_pids = children(web.pid)
        worker_pids = [worker.pid, *children(worker.pid)]
        run(ping, 8, 3)
        before = (rss_kb(web_pids), rss_kb(worker_pids))
        sent = 0
        mixes = [
            ping,
            balance,
            order_list,
            lookup(seed["id"]),
            create_with_webhook(method_id, receiver.url),
        ]
        while sent < MEMORY_REQUESTS:
            for make in mixes:
                sent += run(make, 8, 2)["n"]
        time.sleep(3)  # let the worker drain what the last round queued
        after = (rss_kb(children(web.pid)), rss_kb([worker.pid, *children(worker.pid)]))
        results["memory"] = {
            "requests": sent,
            "web": (before[0], after[0]),
            "worker": (before[1], after[1]),
            "restarted": sorted(children(web.pid)) != sorted(web_pids),
        }
    finally:
        stop_all()
    results["minutes"] = (time.perf_counter() - began) / 60
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_bytes(pickle.dumps(results))
    report(results)


def client_cpu_share() -> float:
    """How much of one core this load generator itself takes while driving ping at 8
    clients: the part of the machine the server does not get."""
    cpu = time.process_time()
    wall = time.perf_counter()
    run(ping, 8, 3)
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


QUERY_COUNTS = """
import json
from django.db import connection
from django.test import Client
c = Client()
h = {"HTTP_X_API_KEY": "demo-shop-key"}
body = {"client_order_id": "q", "order_side": "Buy", "payment_method_id": "%(method)s", "amount": "99999.99"}
order = c.post("/api/v1/order/", body, content_type="application/json", **h).json()
calls = {
    "ping": lambda: c.get("/api/v1/ping", **h),
    "balance": lambda: c.get("/api/v1/finance/balance", **h),
    "list": lambda: c.get("/api/v1/order/", **h),
    "lookup": lambda: c.get("/api/v1/order/" + order["id"], **h),
    "search": lambda: c.get("/api/v1/order/search-by-client-order-id", {"id": "q"}, **h),
    "create": lambda: c.post("/api/v1/order/", dict(body, amount="99998.99"), content_type="application/json", **h),
}
counts = {}
for name, call in calls.items():
    seen = []
    def count(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)
    with connection.execute_wrapper(count):
        status = call().status_code
    assert status < 300, (name, status)
    counts[name] = len([q for q in seen if "SAVEPOINT" not in q])
print(json.dumps(counts))
"""


def query_counts(method_id: str) -> dict:
    """SQL statements per request (savepoints aside), counted in-process on the bench
    database; the cache and Redis calls are not in these counts."""
    return json.loads(shell(QUERY_COUNTS % {"method": method_id}))


def create_with_webhook(method_id, url):
    def make(client, i):
        body = {
            "client_order_id": f"m{i}",
            "order_side": "Buy",
            "payment_method_id": method_id,
            "amount": AMOUNTS.take(),
            "webhook_url": url,
        }
        return client.post("/api/v1/order/", json=body, headers=SHOP)

    return make


def webhook_rates(method_id: str, receiver: "Receiver", n: int = 400):
    """The events are written first (no worker yet, so they wait in the queue); then a
    worker starts and is timed from the first receipt to the last."""
    body_sample = None
    with httpx.Client(base_url=BASE, timeout=30) as client:
        for i in range(n // 2):
            order = client.post(
                "/api/v1/order/",
                headers=SHOP,
                json={
                    "client_order_id": f"w{i}",
                    "order_side": "Buy",
                    "payment_method_id": method_id,
                    "amount": AMOUNTS.take(),
                    "webhook_url": receiver.url,
                },
            ).json()
            client.post(f"/api/v1/order/{order['id']}/cancel", headers=SHOP)
            body_sample = body_sample or json.dumps({"data": {"order": order}})
    receiver.reset()
    worker = start(
        [
            PY,
            "-m",
            "celery",
            "-A",
            "paymentsvc",
            "worker",
            "--concurrency",
            "2",
            "--loglevel",
            "WARNING",
            "--without-mingle",
            "--without-gossip",
        ]
    )
    started = time.perf_counter()
    while receiver.count < n and time.perf_counter() - started < 180:
        time.sleep(0.05)
    worker_rate = receiver.count / max(receiver.last - receiver.first, 1e-9)
    delivered = receiver.count
    receiver.reset()

    async def plain():
        async with httpx.AsyncClient(timeout=30) as client:
            queue = list(range(n))

            async def poster():
                while queue:
                    queue.pop()
                    await client.post(
                        receiver.url,
                        content=body_sample,
                        headers={"Content-Type": "application/json"},
                    )

            await asyncio.gather(*(poster() for _ in range(2)))

    began = time.perf_counter()
    asyncio.run(plain())
    plain_rate = n / (time.perf_counter() - began)
    receiver.reset()
    return {"worker": worker_rate, "plain": plain_rate, "delivered": delivered}, worker


def fmt(r: dict) -> str:
    return f"{r['rps']:.0f} req/s, p50 {r['p50']:.1f} ms, p99 {r['p99']:.1f} ms"


def verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def report(r: dict) -> None:
    t = r["throughput"]
    goals: list[tuple[str, str, bool]] = []
    body: list[str] = []

    body += [
        "## Throughput against the framework's ceiling",
        "",
        "Ceiling: `GET /api/v1/ping`, authenticated and rate-limited like every merchant call "
        "and nothing else. Each endpoint and ping run in alternating slices (3 × "
        f"{SECONDS / 3:g} s each) at the same concurrency, so both see the same machine.",
        "",
        "| endpoint | clients | endpoint result | ping in the same slices | ratio | goal |",
        "|---|---|---|---|---|---|",
    ]
    for name, goal in (("create", 0.5), ("balance", 0.7), ("list", 0.7), ("lookup", 0.7)):
        worst = None
        for c in (1, 8, 32):
            ratio = t[(name, c)]["rps"] / t[(f"ping:{name}", c)]["rps"]
            worst = ratio if worst is None else min(worst, ratio)
            body.append(
                f"| {name} | {c} | {fmt(t[(name, c)])} | {fmt(t[(f'ping:{name}', c)])} | "
                f"{ratio:.2f} | ≥ {goal:.0%}: {verdict(ratio >= goal)} |"
            )
        goals.append(
            (f"{name} throughput ≥ {goal:.0%} of ping", f"lowest ratio {worst:.2f}", worst >= goal)
        )
    errors = sum(v["errors"] for v in t.values())
    body += [
        "",
        f"Non-2xx answers over all these points: {errors}. The load generator itself took "
        f"{r['client_cpu']:.0%} of one core while driving ping at 8 clients: that share of the "
        "two cores is not the server's, and it weighs on ping and on the endpoint alike.",
    ]

    q = r["queries"]
    body += [
        "",
        "## SQL statements per request",
        "",
        "Counted in-process on the bench database (savepoints aside; the rate-limit counter "
        "in Redis is one more round trip for each).",
        "",
        "| " + " | ".join(q) + " |",
        "|" + "---|" * len(q),
        "| " + " | ".join(str(v) for v in q.values()) + " |",
    ]

    sweep = r["configs"]
    best = max(sweep, key=lambda k: sweep[k][0]["rps"])
    body += [
        "",
        "## gunicorn layout (workers × threads)",
        "",
        "Order creation and ping at 32 clients, side by side, under each layout passed as "
        "flags over gunicorn.conf.py. The first row is gunicorn.conf.py's default on this "
        "machine, which the rest of the run uses.",
        "",
        "| workers × threads | create | ping | ratio |",
        "|---|---|---|---|",
    ]
    for (workers, threads), (create, base) in sweep.items():
        body.append(
            f"| {workers} × {threads} | {fmt(create)} | {fmt(base)} | "
            f"{create['rps'] / base['rps']:.2f} |"
        )
    body += [
        "",
        f"Most order creations per second in this run: {best[0]} × {best[1]}.",
    ]

    s = r["scale"]
    body += [
        "",
        "## Scale",
        "",
        "4 clients each. The orders are bulk-loaded Completed orders of Demo Shop spread "
        "over a year (so about 1/365 of them fall in the list's default 24-hour window).",
        "",
        "| query | 10 thousand orders | 1 million orders | ratio of p50 | goal |",
        "|---|---|---|---|---|",
    ]
    for name in ("list", "search", "lookup"):
        ratio = s["1M"][name]["p50"] / s["10k"][name]["p50"]
        goals.append(
            (f"{name}: 1 million vs 10 thousand orders < 1.5", f"{ratio:.2f}", ratio < 1.5)
        )
        body.append(
            f"| {name} | {fmt(s['10k'][name])} | {fmt(s['1M'][name])} | {ratio:.2f} | "
            f"< 1.5: {verdict(ratio < 1.5)} |"
        )
    req = r["requisites"]
    ratio = req["10k"]["p50"] / req["10"]["p50"]
    goals.append(("create: 10 thousand vs 10 requisites < 1.5", f"{ratio:.2f}", ratio < 1.5))
    body.append(
        f"| order creation, 8 clients (10 vs 10 thousand requisites) | {fmt(req['10'])} | "
        f"{fmt(req['10k'])} | {ratio:.2f} | < 1.5: {verdict(ratio < 1.5)} |"
    )

    h = r["hot_balance"]
    body += [
        "",
        "## Hot balance",
        "",
        f"Sell orders, 16 clients: against one balance {fmt(h['one'])}; spread over eight "
        f"terminals, each with its own key and balance, {fmt(h['many'])}; one/many "
        f"{h['one']['rps'] / h['many']['rps']:.2f}. A Sell locks its terminal's balance row "
        "for the rest of its transaction, so one terminal's Sells queue on that lock while "
        "different terminals' do not wait on each other.",
    ]

    w = r["webhooks"]
    ratio = w["worker"] / w["plain"]
    goals.append(("webhook delivery ≥ 50% of a plain client", f"{ratio:.2f}", ratio >= 0.5))
    body += [
        "",
        "## Webhook delivery",
        "",
        f"{w['delivered']} deliveries queued first, then one Celery worker (2 processes) "
        f"started and timed from the first receipt to the last: {w['worker']:.0f}/s. A plain "
        f"httpx client posting the same bodies with the same concurrency (2): "
        f"{w['plain']:.0f}/s. Ratio {ratio:.2f} (goal ≥ 50%: {verdict(ratio >= 0.5)}). Each "
        "delivery also claims its row, signs, and records the attempt.",
    ]

    m = r["memory"]
    web_growth = (m["web"][1] - m["web"][0]) / m["web"][0]
    worker_growth = (m["worker"][1] - m["worker"][0]) / m["worker"][0]
    grew_little = web_growth < 0.1 and worker_growth < 0.1
    goals.append(
        (
            "memory growth < 10% over 20 thousand requests",
            f"web {web_growth:+.1%}, worker {worker_growth:+.1%}",
            grew_little,
        )
    )
    body += [
        "",
        "## Memory",
        "",
        f"Resident size (all gunicorn workers; the Celery worker and its pool) after the run "
        f"above as warm-up, and after {m['requests']} more requests of every kind (creations "
        f"with a webhook each): web {m['web'][0] / 1024:.0f} → {m['web'][1] / 1024:.0f} MiB "
        f"({web_growth:+.1%}), worker {m['worker'][0] / 1024:.0f} → "
        f"{m['worker'][1] / 1024:.0f} MiB ({worker_growth:+.1%}); goal: growth under 10%: "
        f"{verdict(grew_little)}."
        + (" (A gunicorn worker was replaced during the run.)" if m["restarted"] else ""),
    ]

    lines = [
        "# Benchmarks",
        "",
        f"Written by `make bench` ({r['when']}, {r['minutes']:.0f} minutes) on this project's "
        "2-core machine. The production stack: gunicorn with gunicorn.conf.py (gthread, "
        f"{CONFIGS[0][0]} workers × {CONFIGS[0][1]} threads here; worker recycling off for "
        "the run) and a Celery worker, on PostgreSQL and Redis, with DEBUG off. The load "
        "comes from a separate process (asyncio + httpx, closed loop: each client sends "
        "its next request when it has the answer) on the same two cores, so absolute "
        "figures are modest; the results are the ratios, each measured side by side in "
        "one run.",
        "",
        "## Goals",
        "",
        "| goal | this run | |",
        "|---|---|---|",
        *(f"| {goal} | {figure} | {verdict(ok)} |" for goal, figure, ok in goals),
        "",
        *body,
        "",
    ]
    notes = ROOT / "bench" / "notes.md"
    if notes.exists():
        lines += [notes.read_text()]
    (ROOT / "docs" / "benchmarks.md").write_text("\n".join(lines))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--report"]:  # the last run's figures with the current notes
        report(pickle.loads(RESULTS.read_bytes()))
        sys.exit()
    try:
        main()
    finally:
        stop_all()
