"""The report's sections for the ceilings, the metrics' cost, the events log and the
dashboard at scale, and the profiles. Each takes the run's figures and the Goals
table's rows (to add its own) and returns its lines, none when the run has no such
figures."""

import json

from .config import ROOT
from .cpu import KINDS, per_request
from .load import paired_ratio

PROFILE_BEFORE = ROOT / "bench" / "profiles" / "before.json"


def fmt(r: dict) -> str:
    return f"{r['rps']:.0f} req/s, p50 {r['p50']:.1f} ms, p99 {r['p99']:.1f} ms"


def verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def compared(goals: list, goal: str, name: str, first: dict, second: dict, **bound) -> str:
    """A table row of two results side by side, the ratio of the second to the first
    and the goal's verdict; the goal goes into the Goals table too."""
    ratio, limit, ok = bound["ratio"], bound["limit"], bound["ok"]
    digits = bound.get("digits", 2)
    goals.append((goal, f"{ratio:.{digits}f}", ok))
    return (
        f"| {name} | {fmt(first)} | {fmt(second)} | {ratio:.{digits}f} | {limit}: {verdict(ok)} |"
    )


def scale_rows(points: dict, names, what: str, goals: list, prefix: str = "") -> list[str]:
    """Rows of a "10 thousand against 1 million" table, each with its goal: the p50
    grows less than 1.5 times."""
    rows = []
    for name in names:
        small, large = points["10k"][name], points["1M"][name]
        ratio = large["p50"] / small["p50"]
        goal = f"{prefix}{name}: 1 million vs 10 thousand {what} < 1.5"
        rows.append(
            compared(goals, goal, name, small, large, ratio=ratio, limit="< 1.5", ok=ratio < 1.5)
        )
    return rows


def ceilings_section(r: dict, goals: list) -> list[str]:
    if "ceilings" not in r:
        return []
    points = r["ceilings"]["points"]
    out = [
        "",
        "## Against the framework's and the database's ceilings",
        "",
        "Two ceilings measured in the same run, in alternating slices with order creation, "
        "ping and balance at the same number of clients: **bare WSGI**, the same gunicorn "
        "(gunicorn.conf.py, the same workers × threads) serving bench/bare_wsgi.py, a "
        "WSGI app with no Django that answers ping's small JSON body, so what lies "
        "between it and ping is the framework and the service's own request handling; "
        f"**creation SQL**, the {r['ceilings']['statements']} statements one order creation "
        "sends (captured in-process with `connection.execute_wrapper`; the API key and "
        "the method with its fee ranges are kept per process, so: the requisite slice "
        "read on its own, then the write, the order's INSERT with the load row's UPDATE, "
        "the freeze of the trader's deposit and the order's event in one statement that "
        "is its own transaction, as the service sends it: no BEGIN or COMMIT) replayed through psycopg with fresh ids and amounts, "
        "one connection per client and nothing else: a creation cannot go faster than "
        "its SQL alone. Both run from the load generator's process, on the same two "
        "cores as everything else, so the bare ceiling is also the most this load "
        "generator gets from any server on this machine.",
        "",
        "| clients | bare WSGI | creation SQL | create | ping | balance |",
        "|---|---|---|---|---|---|",
    ]
    for clients, p in sorted(points.items()):
        out.append(
            f"| {clients} | "
            + " | ".join(
                fmt(p[n]) for n in ("bare WSGI", "creation SQL", "create", "ping", "balance")
            )
            + " |"
        )
    out += [
        "",
        "Throughput as a fraction of each ceiling:",
        "",
        "| clients | create / bare | create / SQL | ping / bare | ping / SQL | "
        "balance / bare | balance / SQL |",
        "|---|---|---|---|---|---|---|",
    ]
    for clients, p in sorted(points.items()):
        cells = [
            f"{p[name]['rps'] / p[ceiling]['rps']:.2f}"
            for name in ("create", "ping", "balance")
            for ceiling in ("bare WSGI", "creation SQL")
        ]
        out.append(f"| {clients} | " + " | ".join(cells) + " |")
    at16 = points.get(16)
    if at16 is not None:  # creation within reach of its own statements replayed
        ratio = at16["create"]["rps"] / at16["creation SQL"]["rps"]
        bound = cpu_rows(at16, out)
        shown = f"{ratio:.2f}" + (f" (bound: {bound:.2f})" if bound else "")
        goals.append(
            ("create ≥ 60% of the creation-SQL ceiling at 16 clients", shown, ratio >= 0.6)
        )
    return out


CPU_SIDES = ("bare WSGI", "creation SQL", "create", "ping", "balance")


def cpu_rows(at16: dict, out: list[str]) -> float | None:
    """The 16 clients' CPU per request by kind of process (bench.cpu), added to `out`;
    returns the bound it sets on creation against its SQL: the ratio a creation would
    read if it ran nothing of its own beyond ping's request and its own statements in
    PostgreSQL. None for a run that did not count CPU."""
    if any("cpu" not in at16[side] for side in CPU_SIDES):
        return None
    ms = {side: per_request(at16[side]) for side in CPU_SIDES}
    out += [
        "",
        "CPU per request at 16 clients, by kind of process (ms; from /proc, the slices "
        "above; PostgreSQL's closed connections counted through its postmaster; "
        "the machine's busy time holds these and whatever else ran, the Celery worker "
        "among it):",
        "",
        "| request | web | PostgreSQL | Redis | load generator | machine |",
        "|---|---|---|---|---|---|",
    ]
    for side in CPU_SIDES:
        out.append(f"| {side} | " + " | ".join(f"{ms[side][k]:.2f}" for k in KINDS) + " |")
    sql = ms["creation SQL"]["machine"]
    ideal = ms["ping"]["machine"] + ms["create"]["postgres"]
    bare = ms["bare WSGI"]["machine"] + ms["create"]["postgres"]
    out += [
        "",
        "**What the creation-SQL goal asks.** With every core busy, throughput goes as the "
        "inverse of the machine's time per request. A creation that ran no code of its "
        "own beyond ping's request (the HTTP client's share, gunicorn, the middleware, "
        "the key and the rate limit) and its statements' time in PostgreSQL would take "
        f"{ideal:.2f} ms of the machine, against its SQL replayed's {sql:.2f} ms: "
        f"**{sql / ideal:.2f}** of the ceiling, with nothing left for the body's "
        "validation, the placement and the answer. Without Django at all (the bare "
        f"WSGI app's {ms['bare WSGI']['machine']:.2f} ms in place of ping's) it would read "
        f"{sql / bare:.2f}. The measured creation took {ms['create']['machine']:.2f} ms "
        f"({sql / ms['create']['machine']:.2f} by the same reckoning).",
    ]
    return sql / ideal


def metrics_section(r: dict, goals: list) -> list[str]:
    if "metrics" not in r:
        return []
    out = [
        "",
        "## Metrics on and off",
        "",
        "Two servers started for the point, the same but for `METRICS_ENABLED`: one counts "
        "its metrics in multiprocess mode (PROMETHEUS_MULTIPROC_DIR, as deployed), the "
        "other counts nothing. Order creation and ping at 16 clients on each, in "
        "alternating slices (6 rounds; a request's sides run one right after another in "
        "each). Off / on is the median of the rounds' own ratios: a stall of the "
        "machine lands on one slice, and in the sum of the slices it moved this figure by "
        "a fifth. Goal: the metrics cost at most 5% (off/on throughput ≤ 1.05).",
        "",
        "| request | metrics on | metrics off | off / on | goal |",
        "|---|---|---|---|---|",
    ]
    twins = []
    for name, (on, off, *twin) in r["metrics"].items():
        ratio = paired_ratio(on, off)
        goal = f"{name}: metrics off / on ≤ 1.05"
        out.append(
            compared(
                goals, goal, name, on, off, ratio=ratio, limit="≤ 1.05", ok=ratio <= 1.05, digits=3
            )
        )
        if twin:
            twins.append(
                f"| {name} | {fmt(on)} | {fmt(twin[0])} | {paired_ratio(on, twin[0]):.3f} |"
            )
    if twins:
        out += [
            "",
            "The control: a third server, the twin of the one with metrics on, started with "
            "the other two and run in the same rounds. Twin / on is how far apart two "
            "servers that differ in nothing read in this run: an off / on within that "
            "distance of 1 is the servers' spread, not the metrics' cost.",
            "",
            "| request | metrics on | its twin | twin / on |",
            "|---|---|---|---|",
            *twins,
        ]
    return out


def events_section(r: dict, goals: list) -> list[str]:
    if "events" not in r:
        return []
    e = r["events"]
    out = [
        "",
        "## Events log at scale",
        "",
        "`GET /api/v1/events` (the first page, default size 10) and one order's history "
        "(`GET /api/v1/events?order_id=…`), 4 clients each, for a terminal with 10 "
        "thousand and with 1 million events (bulk-loaded copies of its own first event, "
        "spread over a year).",
        "",
        "| query | 10 thousand events | 1 million events | ratio of p50 | goal |",
        "|---|---|---|---|---|",
    ]
    return out + scale_rows(e, list(e["10k"]), "events", goals, prefix="events ")


def dashboard_section(r: dict, goals: list) -> list[str]:
    if "dashboard" not in r:
        return []
    out = [
        "",
        "## Operators' dashboard with 1 million orders",
        "",
        "`/admin/dashboard/?period=…` (every live terminal), signed in as the demo "
        "operator, one request after another for each period, over the orders the scale "
        "point loaded (1 million, spread over a year) and the run's own. The goal "
        "([operators.md](operators.md)): it renders in under a second with 1 million orders (judged here on p99, every "
        "request).",
        "",
        "| period | orders in it | requests | median | p99 | goal |",
        "|---|---|---|---|---|---|",
    ]
    for period, d in r["dashboard"].items():
        ok = d["p99"] < 1000
        goals.append(
            (f"dashboard {period}, 1 million orders: under 1 s", f"p99 {d['p99']:.0f} ms", ok)
        )
        out.append(
            f"| {period} | {d['orders']:,} | {d['n']} | {d['p50']:.0f} ms | {d['p99']:.0f} ms | "
            f"< 1 s: {verdict(ok)} |"
        )
    return out


def frame_rows(after: list, before: list | None, time_key: str) -> list[str]:
    rows = []
    for i in range(max(len(after), len(before or []))):
        cells = [str(i + 1)]
        for side in (after, before) if before is not None else (after,):
            if i < len(side):
                f = side[i]
                cells += [f"`{f['frame']}`", f"{f['calls']:g}", f"{f[time_key]:.2f}"]
            else:
                cells += ["", "", ""]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def profiles_section(r: dict, goals: list) -> list[str]:
    if "profile" not in r:
        return []
    after = r["profile"]
    before = json.loads(PROFILE_BEFORE.read_text()) if PROFILE_BEFORE.exists() else None
    out = [
        "",
        "## Where the time goes (profiles)",
        "",
        f"`python -m bench.django_side profile METHOD {after['requests']}`: "
        f"{after['requests']} order creations and {after['requests']} order list pages "
        "(`size=50`) in-process through Django's test client on the bench database, right "
        "after it is seeded; first timed alone (the mean without the profiler), then again "
        "under cProfile. Per request: calls, and milliseconds under the profiler (its "
        "overhead inflates small frequent calls). The harness's frames are left out, and "
        "from the cumulative tables also the frames that hold nine tenths of the request "
        "or more (the handler and the middleware layers around the view).",
    ]
    if before is not None:
        out += [
            "",
            f"Before: commit {before['commit']} ({before['when']}, bench/profiles/before.json); "
            f"after: this run, commit {after['commit']}. They were taken at different times "
            "on a shared machine, whose load alone has moved the same code's means by a "
            "quarter: compare the frames' shares more than the milliseconds.",
        ]
    for kind in ("create", "list (size=50)"):
        a = after[kind]
        b = before[kind] if before is not None else None
        mean = f"{a['mean_ms']:.1f} ms"
        if b is not None:
            mean = f"{b['mean_ms']:.1f} ms before, {mean} after"
        head = "| # | frame | calls | ms |"
        rule = "|---|---|---|---|"
        if b is not None:
            head = "| # | after: frame | calls | ms | before: frame | calls | ms |"
            rule = "|---|---|---|---|---|---|---|"
        for key, title, time_key in (
            ("tottime", "by own time", "tottime_ms"),
            ("cumtime", "by cumulative time", "cumtime_ms"),
        ):
            out += [
                "",
                f"**{kind}**, mean per request without the profiler: {mean}. Top 15 {title}:"
                if key == "tottime"
                else f"**{kind}**, top 15 {title}:",
                "",
                head,
                rule,
                *frame_rows(a[key], b[key] if b is not None else None, time_key),
            ]
    return out
