"""The figures block of docs/scale.md, from the run's figures docs/benchmarks.md is
written from: what one request costs the machine, what 10 and 100 times today's rate
need, the best gunicorn layout, the webhook delivery rate and the orders table's size.

Only the lines between the two markers are replaced; the text around them is written
by hand and holds no figure of a run. A part whose figures the run does not have (an
older run's pickle) is left out."""

import math
import os
import sys

from .config import ROOT

SCALE = ROOT / "docs" / "scale.md"
BEGIN, END = "<!-- figures from make bench -->", "<!-- end of figures -->"
CLIENTS = 16
# Each request kind's label, in the order of the cost table.
KINDS = {
    "ping": "ping",
    "balance": "balance",
    "lookup": "lookup",
    "search": "search",
    "list (size=50)": "list (size=50)",
    "list": "list",
    "create": "create",
    "creation SQL": "the creation's SQL alone (psycopg replay)",
    "bare WSGI": "bare WSGI app (no Django)",
}
# A Buy order with a webhook URL is delivered order.created and how it ended.
DELIVERIES_PER_ORDER = 2
# Memory for the orders table on the database server (GiB), for the partitioning rule.
MEMORY_GIB = (16, 64, 256)
TIMES = (1, 10, 100)


def write_scale(r: dict) -> None:
    text = SCALE.read_text()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.stderr.write(f"{SCALE}: no figures markers, its figures are not written\n")
        return
    lines = ["", *scale_figures(r), ""]
    SCALE.write_text(text[: start + len(BEGIN)] + "\n".join(lines) + text[end:])


def rates_at(r: dict) -> tuple[int, dict[str, float]]:
    """Requests a second of each kind at CLIENTS clients, each in slices of its own:
    the ceilings point, then the point against the balance read; a run with neither
    (an old one) gives its throughput points at 32 clients."""
    rates = {}
    point = r.get("ceilings", {}).get("points", {}).get(CLIENTS, {})
    for name in KINDS:
        if name in point:
            rates[name] = point[name]["rps"]
    for name, (target, base) in r.get("vs_balance", {}).items():
        rates.setdefault(name, target["rps"])
        rates.setdefault("balance", base["rps"])
    clients = CLIENTS
    if not rates:
        clients = 32
        for (name, c), result in r.get("throughput", {}).items():
            if c == clients:
                rates.setdefault("ping" if name.startswith("ping:") else name, result["rps"])
    return clients, {name: rates[name] for name in KINDS if name in rates}


def number(x: float) -> str:
    """Two significant digits from a hundred up: these are estimates."""
    if x < 10:
        return f"{x:.1f}"
    if x < 100:
        return f"{x:.0f}"
    x = round(x, 1 - math.floor(math.log10(x)))
    return f"{x / 1e6:g} million" if x >= 1e6 else f"{x:,.0f}"


def scale_figures(r: dict) -> list[str]:
    cores = r.get("cores") or os.cpu_count()
    server = cores - r.get("client_cpu", 0.0)
    out = [
        f"_From the run of {r.get('when', 'an undated run')} (docs/benchmarks.md), written by "
        "`make bench` (bench/report_scale.py): edit the text around this block, not the "
        "block._",
    ]
    clients, rates = rates_at(r)
    ms = {name: server * 1000 / rps for name, rps in rates.items()}
    if rates:
        out += [
            "",
            f"**Machine time per request**, at {clients} clients, each kind in slices of its "
            f"own: the {cores} cores less the load generator's share "
            f"({r.get('client_cpu', 0.0):.2f} of a core) over the rate. It counts all the "
            "request made the machine do (gunicorn, PostgreSQL, Redis) and whatever else ran "
            "on the shared machine: an upper bound.",
            "",
            "| request | per second | ms of machine each |",
            "|---|---|---|",
            *(f"| {KINDS[name]} | {rps:.0f} | {ms[name]:.1f} |" for name, rps in rates.items()),
        ]
    if "create" in rates:
        out += needs(r, clients, rates["create"], ms)
    out += layout(r)
    out += deliveries(r)
    out += orders_table(r, rates.get("create"))
    return out


def needs(r: dict, clients: int, rate: float, ms: dict) -> list[str]:
    """Today's rate (order creation at `clients` clients) and what 10 and 100 times it
    take."""
    database = ms.get("creation SQL")
    if database is not None and database < ms["create"]:
        web = ms["create"] - database
        split = (
            f"An order creation takes {ms['create']:.1f} ms of machine: at most "
            f"{database:.1f} ms is PostgreSQL's (its SQL replayed alone, the replaying "
            f"client included), the other {web:.1f} ms the web tier's (Django, the "
            "service, Redis)."
        )
    else:
        database, web = None, ms["create"]
        split = (
            f"An order creation takes {ms['create']:.1f} ms of machine (the database's share "
            "was not measured in this run: all of it is counted as the web tier's)."
        )
    rows = [
        ("order creations a second", 1),
        (f"web cores busy ({web:.1f} ms each)", web / 1000),
    ]
    if database is not None:
        rows.append((f"PostgreSQL cores busy (at most {database:.1f} ms each)", database / 1000))
    rows.append(("PostgreSQL commits a second (one per creation)", 1))
    w = r.get("webhooks")
    if w:
        rows.append(
            (
                f"webhook deliveries a second (order.created and its outcome: {DELIVERIES_PER_ORDER} an order)",
                DELIVERIES_PER_ORDER,
            )
        )
        per_process = w["worker"] / w.get("processes", 2)
        rows.append(
            (
                f"worker processes for them ({per_process:.1f} deliveries a second each)",
                DELIVERIES_PER_ORDER / per_process,
            )
        )
    rows.append(("orders a day, around the clock", 86_400))
    return [
        "",
        split,
        "",
        f"**Today's rate** is what this machine made at {clients} clients, web tier and "
        f"database on the same cores: {rate:.0f} order creations a second (a capacity, "
        "not a traffic figure). Cores busy = rate × ms per creation / 1000; reads come "
        "on top, each kind at its own cost above.",
        "",
        "| | today | 10× | 100× |",
        "|---|---|---|---|",
        *(
            f"| {label} | " + " | ".join(number(rate * n * factor) for n in TIMES) + " |"
            for label, factor in rows
        ),
    ]


def layout(r: dict) -> list[str]:
    sweep = r.get("configs")
    if not sweep:
        return []
    best = max(sweep, key=lambda k: sweep[k][0]["rps"])
    default = next(iter(sweep))
    create, ping = sweep[best]
    out = [
        "",
        f"**gunicorn layout**: the sweep's most order creations at 32 clients came from "
        f"{best[0]} processes × {best[1]} threads ({create['rps']:.0f} a second, ping "
        f"{ping['rps']:.0f} in the same slices); "
        + (
            "that is gunicorn.conf.py's default on this machine."
            if best == default
            else f"gunicorn.conf.py's default, {default[0]} × {default[1]}, made "
            f"{sweep[default][0]['rps'] / create['rps']:.0%} of that."
        ),
    ]
    m = r.get("memory")
    if m:
        out[-1] += (
            f" Resident memory after the memory point: {m['web'][1] / 1024 / default[0]:.0f} "
            f"MiB per web process, {m['worker'][1] / 1024:.0f} MiB for the Celery worker with "
            "its pool."
        )
    return out


def deliveries(r: dict) -> list[str]:
    w = r.get("webhooks")
    if not w:
        return []
    processes = w.get("processes", 2)
    in_flight = w.get("in_flight", processes)
    answer = f" answering in {w['answer_ms']:.0f} ms" if "answer_ms" in w else ""
    return [
        "",
        f"**Webhook delivery**: one Celery worker of {processes} "
        f"process{'es' if processes != 1 else ''} ({in_flight} in flight) delivered "
        f"{w['worker']:.0f} a second to a receiver on this machine{answer}, "
        f"{w['worker'] / processes:.1f} per process (a plain client posting {in_flight} at "
        f"a time: {w['plain']:.0f} a second).",
    ]


def orders_table(r: dict, rate: float | None) -> list[str]:
    size = r.get("orders_size")
    if not size or not size["orders"]:
        return []
    row, index = size["table"] / size["orders"], size["indexes"] / size["orders"]
    each = row + index
    limits = ", ".join(
        f"{gib} GiB from {number(gib * 2**30 / (365 * each))} a day" for gib in MEMORY_GIB
    )
    out = [
        "",
        f"**The orders table** after the scale point: {size['orders']:,} orders (most of them "
        f"bulk-loaded, narrower than live ones) take {row:.0f} bytes each in rows and "
        f"{index:.0f} in indexes, {each:,.0f} bytes an order. A year of orders outgrows "
        f"the database's memory for it ({limits}).",
    ]
    if rate is not None:
        out[-1] += " Today's rate around the clock: " + ", ".join(
            f"{number(rate * n * 86_400)} a day ({number(rate * n * 86_400 * each / 1e9)} GB)"
            + ("" if n == 1 else f" at {n}×")
            for n in TIMES
        )
        out[-1] += "."
    return out
