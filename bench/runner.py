"""One bench run: every measurement, in order, then the report."""

import json
import os
import pickle
import shutil
import sys
import time
from datetime import UTC, datetime

from .ceilings import ceilings, metrics_cost
from .config import MEMORY_REQUESTS, METRICS_DIR, RESULTS, SECONDS
from .data import (
    add_requisites,
    analyze,
    bulk_orders,
    fill_requisite_day,
    fill_terminal_window,
    orders_size,
    settle_orders,
    setup,
)
from .history import dashboard, events_scale
from .load import (
    availability,
    balance,
    create_buy,
    create_one,
    create_sell,
    create_with_webhook,
    lookup,
    order_list,
    order_list_50,
    ping,
    run,
    search,
    search_as,
    side_by_side,
)
from .paths import new_paths
from .pgbouncer import check_answers, start_pgbouncer, through_pgbouncer_env
from .processes import CONFIGS, children, django_side, rss_kb, start_web, stop, stop_all
from .report import report
from .webhooks import Receiver, webhook_rates


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
    results: dict = {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
    }
    began = time.perf_counter()
    shutil.rmtree(METRICS_DIR, ignore_errors=True)  # each run counts from zero
    setup()
    method_id = django_side("method-id")
    if os.environ.get("BENCH_ONLY") == "paths":  # the new paths alone, figures printed
        web = start_web()
        run(ping, 8, 2)
        sys.stdout.write(json.dumps(new_paths(method_id, web.pid), default=str, indent=1) + "\n")
        return
    if os.environ.get("BENCH_ONLY") == "ratios":  # ratios to balance, and 10 vs 10k requisites
        web = start_web()
        run(ping, 8, 2)
        seed = create_one(method_id, "lookup-me")
        analyze()
        ratios = {}
        for name, make in (
            ("create", create_buy(method_id)),
            ("list (size=50)", order_list_50("demo-shop-key")),
            ("lookup", lookup(seed["id"])),
        ):
            if name == "create":
                # Only before creation: the list reads today's orders, which creation
                # just made (settled ones move two days back, out of its window).
                settle_orders()
            ours, theirs = side_by_side(make, balance, 16)
            ratios[name] = round(ours["rps"] / theirs["rps"], 3)
        for label, total in (("10", 10), ("10k", 10_000)):
            add_requisites(method_id, total)
            settle_orders()
            ratios[f"create at {label} requisites, req/s"] = round(
                run(create_buy(method_id), 8)["rps"], 1
            )
        sys.stdout.write(json.dumps(ratios) + "\n")
        return
    results["queries"] = query_counts(method_id)
    # In-process, on the freshly seeded database (as bench/profiles/before.json was).
    results["profile"] = json.loads(django_side("profile", method_id, PROFILE_REQUESTS))
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
        seed = create_one(method_id, "lookup-me")
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
        settle_orders()
        results["vs_balance"] = {
            name: side_by_side(make, balance, 16)
            for name, make in (
                ("create", create_buy(method_id)),
                ("availability", availability(method_id)),
                ("list (size=50)", order_list_50("demo-shop-key")),
                ("lookup", lookup(seed["id"])),
                ("search", search_as("demo-shop-key", "lookup-me")),
            )
        }
        results["paths"] = new_paths(method_id, web.pid)
        results["client_cpu"] = client_cpu_share()
        results["ceilings"] = ceilings(method_id, web.pid)
        results["metrics"] = metrics_cost(method_id)

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
        results["orders_size"] = orders_size()  # the 1 million orders, the run's own among them
        results["dashboard"] = dashboard()  # over the 1 million orders just loaded
        results["events"] = events_scale(method_id)

        # Side by side: creation on a method with ten thousand requisites, and on the
        # bench's own with its ten.
        wide = django_side("wide-method")
        add_requisites(wide, 10_000)
        settle_orders()
        run(create_buy(wide), 8, 1)  # warm-up
        many, few = side_by_side(create_buy(wide), create_buy(method_id), 8)
        results["requisites"] = {"10": few, "10k": many}
        results["day"] = busy_day()
        results["window"] = busy_terminal()

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
        stop(web)
        results["pgbouncer"] = through_pgbouncer(method_id, seed["id"])
    finally:
        stop_all()
    results["minutes"] = (time.perf_counter() - began) / 60
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_bytes(pickle.dumps(results))
    report(results)


DAY_ORDERS = 5000
PROFILE_REQUESTS = "200"


def busy_day() -> tuple[dict, dict]:
    """Creation on a method whose requisites each took DAY_ORDERS orders today, side
    by side with creation on a method whose requisites took none (two requisites each,
    16 clients): a creation must not cost more late in a requisite's day."""
    settle_orders()
    busy, quiet = django_side("method-id", "Sberbank SBP"), django_side("method-id", "T-Bank SBP")
    fill_requisite_day("Sberbank SBP", DAY_ORDERS)
    run(create_buy(quiet), 8, 1)  # warm-up
    return side_by_side(create_buy(busy), create_buy(quiet), 16)


def busy_terminal() -> dict:
    """The order list (size=50) and search of a terminal with 100 thousand orders in
    the default 24-hour window, side by side with one that has 1 thousand (8 clients)."""
    fill_terminal_window("Bench 1", 1_000)
    fill_terminal_window("Bench 2", 100_000)
    quiet, busy = "bench-key-1", "bench-key-2"
    run(order_list_50(busy), 4, 1)  # warm-up
    points = {}
    for name, make in (
        ("list", order_list_50),
        ("search", lambda key: search_as(key, "win-500")),
    ):
        points[name] = side_by_side(make(busy), make(quiet), 8)
    return points


def through_pgbouncer(method_id: str, order_id: str) -> dict:
    """The same server with PgBouncer (transaction pooling) between it and PostgreSQL:
    every kind of request answered, and each endpoint side by side with ping through
    the same PgBouncer at 16 clients."""
    bouncer = start_pgbouncer()
    if bouncer is None:
        return {}
    try:
        web = start_web(env=through_pgbouncer_env())
        try:
            settle_orders()
            run(ping, 8, 1)  # warm-up
            points = {
                name: side_by_side(make, ping, 16)
                for name, make in (
                    ("create", create_buy(method_id)),
                    ("list", order_list),
                    ("lookup", lookup(order_id)),
                )
            }
            return {"problems": check_answers(), "points": points}
        finally:
            stop(web)
    finally:
        stop(bouncer)


def client_cpu_share() -> float:
    """How much of one core this load generator itself takes while driving ping at 8
    clients: the part of the machine the server does not get."""
    cpu = time.process_time()
    wall = time.perf_counter()
    run(ping, 8, 3)
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def query_counts(method_id: str) -> dict:
    """SQL statements per request (savepoints aside), counted in-process on the bench
    database; the cache and Redis calls are not in these counts."""
    return json.loads(django_side("query-counts", method_id))
