"""docs/benchmarks.md from one run's figures, with bench/notes.md appended."""

import sys

from .config import ROOT, SECONDS
from .processes import CONFIGS
from .report_paths import paths_section
from .report_points import (
    ceilings_section,
    dashboard_section,
    events_section,
    fmt,
    metrics_section,
    profiles_section,
    scale_rows,
    verdict,
)
from .report_scale import write_scale


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
    for name, goal in (("create", 0.6), ("balance", 0.7), ("list", 0.7), ("lookup", 0.7)):
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

    if "vs_balance" in r:
        body += [
            "",
            "## Against the balance read, 16 clients",
            "",
            "Each endpoint in alternating slices with `GET /api/v1/finance/balance` (one "
            "indexed read beyond ping) at 16 clients.",
            "",
            "| endpoint | result | balance in the same slices | ratio | goal |",
            "|---|---|---|---|---|",
        ]
        for name, (target, base) in r["vs_balance"].items():
            goal = 0.5 if name in ("create", "availability") else 0.7
            ratio = target["rps"] / base["rps"]
            goals.append(
                (f"{name} ≥ {goal:.0%} of balance at 16 clients", f"{ratio:.2f}", ratio >= goal)
            )
            body.append(
                f"| {name} | {fmt(target)} | {fmt(base)} | {ratio:.2f} | "
                f"≥ {goal:.0%}: {verdict(ratio >= goal)} |"
            )

    body += paths_section(r, goals)
    body += ceilings_section(r, goals)
    body += metrics_section(r, goals)

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
    default = next(iter(sweep))
    body += [
        "",
        f"Most order creations per second in this run: {best[0]} × {best[1]}. "
        + (
            "That is gunicorn.conf.py's default."
            if best == default
            else f"gunicorn.conf.py's default ({default[0]} × {default[1]}) made "
            f"{sweep[default][0]['rps'] / sweep[best][0]['rps']:.0%} of that (the layouts "
            "run one after another, so a busy moment on the shared machine can rank close "
            "layouts either way)."
        ),
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
    body += scale_rows(s, ("list", "search", "lookup"), "orders", goals)
    req = r["requisites"]
    ratio = req["10k"]["p50"] / req["10"]["p50"]
    goals.append(("create: 10 thousand vs 10 requisites < 1.5", f"{ratio:.2f}", ratio < 1.5))
    body.append(
        f"| order creation, 8 clients, side by side (a method's 10 vs another's 10 thousand "
        f"requisites) | {fmt(req['10'])} | "
        f"{fmt(req['10k'])} | {ratio:.2f} | < 1.5: {verdict(ratio < 1.5)} |"
    )

    body += events_section(r, goals)
    body += dashboard_section(r, goals)

    if "day" in r:
        busy, quiet = r["day"]
        ratio = quiet["rps"] / busy["rps"]
        goals.append(
            (
                "create: 5,000 of today's orders on each requisite vs none ≤ 1.2",
                f"{ratio:.2f}",
                ratio <= 1.2,
            )
        )
        body += [
            "",
            "## Creation late in a requisite's day",
            "",
            "Order creation at 16 clients on Sberbank SBP, whose two requisites each took "
            "5,000 orders today, in alternating slices with creation on T-Bank SBP, whose two "
            "requisites took none: each requisite's Pending count and turnover are one row "
            "(RequisiteLoad), not an aggregate of its day.",
            "",
            "| requisites' day | result | cost ratio (busy / empty) | goal |",
            "|---|---|---|---|",
            f"| none today | {fmt(quiet)} | | |",
            f"| 5,000 each today | {fmt(busy)} | {ratio:.2f} | ≤ 1.2: {verdict(ratio <= 1.2)} |",
        ]

    if "window" in r:
        body += [
            "",
            "## A busy terminal's day",
            "",
            "The order list (`size=50`, default 24-hour window) and the search by "
            "client_order_id at 8 clients, for a terminal with 100 thousand orders inside "
            "the window, in alternating slices with a terminal that has 1 thousand. The "
            "list's `total` is counted up to ORDER_LIST_COUNT_CAP (1,000; beyond it a "
            "lower bound with `total_is_estimate`), its page read off the index.",
            "",
            "| query | 1 thousand orders today | 100 thousand orders today | cost ratio | goal |",
            "|---|---|---|---|---|",
        ]
        for name in ("list", "search"):
            busy, quiet = r["window"][name]
            ratio = quiet["rps"] / busy["rps"]
            goals.append(
                (
                    f"{name}: 100 thousand vs 1 thousand orders today ≤ 1.5",
                    f"{ratio:.2f}",
                    ratio <= 1.5,
                )
            )
            body.append(
                f"| {name} | {fmt(quiet)} | {fmt(busy)} | {ratio:.2f} | "
                f"≤ 1.5: {verdict(ratio <= 1.5)} |"
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
    most = w.get("worker_most_in_flight", 0)
    goals.append(
        (
            "webhook delivery ≥ 80% of a plain client (16 in flight, receiver answering in 50 ms)",
            f"{ratio:.2f}",
            ratio >= 0.8,
        )
    )
    goals.append(("worker keeps 16 deliveries in flight", f"at most {most} at once", most >= 16))
    body += [
        "",
        "## Webhook delivery",
        "",
        f"The receiver answers each POST after {w.get('answer_ms', 50):.0f} ms, as a merchant's "
        f"server might. {w['delivered']} deliveries queued first, then one Celery worker started "
        "as the Procfile runs it, with one process (`WORKER_CONCURRENCY=1`) keeping "
        f"`WEBHOOK_DELIVERY_CONCURRENCY={w.get('in_flight', 16)}` deliveries in flight, and "
        f"timed at the receiver from the first receipt to the last: {w['worker']:.0f}/s, at most "
        f"{most} requests at the receiver at once. A plain httpx client posting the same bodies "
        f"with {w.get('in_flight', 16)} concurrent posters, once before the worker and once "
        f"after: {w['plain']:.0f}/s on average"
        + (" ({:.0f} and {:.0f})".format(*w["plain_runs"]) if "plain_runs" in w else "")
        + f", at most {w.get('plain_most_in_flight', 0)} at once. Ratio {ratio:.2f} (goal ≥ 80%: "
        f"{verdict(ratio >= 0.8)}; 16 in flight: {verdict(most >= 16)}). Each delivery also "
        "claims its row, signs, and records the attempt.",
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

    if r.get("pgbouncer"):
        pgb = r["pgbouncer"]
        errors = sum(t["errors"] + b["errors"] for t, b in pgb["points"].values())
        works = not pgb["problems"] and errors == 0
        goals.append(
            (
                "works through PgBouncer (transaction pooling)",
                f"{errors} errors, {len(pgb['problems'])} wrong answers",
                works,
            )
        )
        body += [
            "",
            "## Through PgBouncer (transaction pooling)",
            "",
            "The same gunicorn with Debian's PgBouncer between it and PostgreSQL "
            "(`pool_mode = transaction`, 6 server connections, PGBOUNCER_TRANSACTION_MODE=true, "
            "CONN_MAX_AGE=0): each endpoint in alternating slices with ping through the same "
            "PgBouncer, 16 clients.",
            "",
            "| endpoint | result | ping in the same slices | ratio |",
            "|---|---|---|---|",
            *(
                f"| {name} | {fmt(t)} | {fmt(b)} | {t['rps'] / b['rps']:.2f} |"
                for name, (t, b) in pgb["points"].items()
            ),
            "",
            f"Non-2xx answers: {errors}."
            + (f" Wrong answers: {'; '.join(pgb['problems'])}." if pgb["problems"] else ""),
        ]

    body += profiles_section(r, goals)

    lines = [
        "# Benchmarks",
        "",
        f"Written by `make bench` ({r['when']}, {r['minutes']:.0f} minutes) on this project's "
        "2-core machine. The production stack: gunicorn with gunicorn.conf.py (gthread, "
        f"{CONFIGS[0][0]} workers × {CONFIGS[0][1]} threads here; worker recycling off for "
        "the run) and a Celery worker, on PostgreSQL and Redis, with DEBUG off and metrics "
        "in multiprocess mode. The load "
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
    write_scale(r)  # docs/scale.md's figures, from the same run
