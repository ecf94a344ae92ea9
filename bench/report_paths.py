"""The report's section for the wave's new paths (bench.paths): creation among Pending
orders, a device's burst, open cabinets, withdrawals and settlements, the audit entry."""

import statistics

from .load import merge
from .paths import BURST, CABINET_WINDOW, CABINETS, HELD, POLL_SECONDS
from .report_points import compared, fmt, verdict

ORDERS_TABLE = "orders_order"


def paths_section(r: dict, goals: list) -> list[str]:
    p = r.get("paths")
    if not p:
        return []
    body = ["", "## The wave's new paths", ""]
    body += _held(p["held"], goals)
    body += _availability(r, goals)
    body += _notifications(p["notifications"], goals)
    body += _cabinets(p["cabinets"], goals)
    body += _money(p["money"], goals)
    return body


def _held(held, goals) -> list[str]:
    busy, quiet = held
    ratio = quiet["rps"] / busy["rps"]
    return [
        f"Creation on a method whose two requisites hold {HELD:,} Pending Buys, side by side "
        "with one whose requisites hold 10 (16 clients): the matcher's \"amount already "
        'held" check is an equality probe of the unique partial index, whatever the '
        "Pending count.",
        "",
        "| point | 10 Pending | 3,000 Pending | ratio | goal |",
        "|---|---|---|---|---|",
        compared(
            goals,
            f"create: {HELD:,} Pending orders on the requisites vs 10 ≤ 1.2",
            "create",
            quiet,
            busy,
            ratio=ratio,
            limit="≤ 1.2",
            ok=ratio <= 1.2,
        ),
        "",
    ]


def _availability(r, goals) -> list[str]:
    vs = r.get("vs_balance", {})
    if "availability" not in vs or "create" not in vs:
        return []
    share = {name: vs[name][0]["rps"] / vs[name][1]["rps"] for name in ("availability", "create")}
    ok = share["availability"] >= share["create"]
    goals.append(
        (
            "availability costs at most a creation (share of balance, 16 clients)",
            f"{share['availability']:.2f} vs {share['create']:.2f}",
            ok,
        )
    )
    return [
        f"`POST /api/v1/order/availability` made {share['availability']:.2f} of the balance "
        f"read's throughput, creation {share['create']:.2f} (the table above): "
        f"{verdict(ok)}.",
        "",
    ]


def _rounds(parts: list[dict]) -> dict:
    """Bursts of a point as one result (their latencies are not kept): requests over
    the time they took, the rounds' median p50 and highest p99."""
    n = sum(p["n"] for p in parts)
    return {
        "rps": n / sum(p["n"] / p["rps"] for p in parts),
        "p50": statistics.median(p["p50"] for p in parts),
        "p99": max(p["p99"] for p in parts),
        "n": n,
        "errors": sum(p["errors"] for p in parts),
    }


def _notifications(n, goals) -> list[str]:
    bursts, crowded, base = _rounds(n["bursts"]), _rounds(n["crowded"]), merge(n["balance"])
    ratio = bursts["rps"] / base["rps"]
    flat = bursts["rps"] / crowded["rps"]
    matched = sum(b["statuses"].get("matched", 0) for b in n["bursts"] + n["crowded"])
    sent = BURST * (len(n["bursts"]) + len(n["crowded"]))
    goals.append(
        (
            "device notifications, bursts of 300: every one matched",
            f"{matched}/{sent}",
            matched == sent,
        )
    )
    return [
        f"A device's bursts of {BURST} notifications (16 clients; each pays one of {BURST} "
        f"Pending Buys on its requisite and completes it), {len(n['bursts'])} rounds, each "
        "beside the same burst from a second device whose requisite holds "
        f"{HELD:,} more Pending Buys of other amounts (the two taking turns to go first), "
        "and a slice of the balance read.",
        "",
        "| point | result | compared with | ratio | goal |",
        "|---|---|---|---|---|",
        compared(
            goals,
            "device notifications ≥ 50% of balance at 16 clients",
            "notifications vs balance",
            bursts,
            base,
            ratio=ratio,
            limit="≥ 50%",
            ok=ratio >= 0.5,
        ),
        compared(
            goals,
            f"notifications: {HELD:,} more Pending on the requisite vs none ≤ 1.2",
            f"notifications, {HELD:,} more Pending",
            crowded,
            bursts,
            ratio=flat,
            limit="≤ 1.2",
            ok=flat <= 1.2,
        ),
        "",
        f"Matched: {matched} of {sent} notifications.",
        "",
    ]


def _cabinets(c, goals) -> list[str]:
    poll = c["poll"]
    touched = [sql for sql in poll["statements"] if ORDERS_TABLE in sql]
    ok = poll["again"] == 304 and not touched
    goals.append(
        ("cabinet poll answered 304 without reading the orders table", "yes" if ok else "no", ok)
    )
    polls = sum(c["statuses"].values())
    not_modified = c["statuses"].get(304, c["statuses"].get("304", 0))
    share = c["cpu"] / c["cores"]
    return [
        f"{CABINETS:,} open cabinets, each polling its orders every {POLL_SECONDS:g} s with "
        f"`If-None-Match` for {CABINET_WINDOW:g} s, each after loading its list ({polls:,} "
        f"polls in {c['wall']:.0f} s, {not_modified:,} answered 304): the web processes took "
        f"{c['cpu']:.2f} CPU seconds a second, {share:.0%} of the machine's {c['cores']} "
        f"cores ({c['idle_cpu']:.2f} at rest, no cabinet open). A poll answered 304 sent "
        f"{len(poll['statements'])} SQL statements (the session's row), none to "
        f"`{ORDERS_TABLE}`: {verdict(ok)}.",
        "",
    ]


def _audit_on_an_action(ms, beside: float, share: float) -> list[str]:
    if "close" not in ms:
        return [f"The entry alone is {share:.1%} of a Buy's creation.", ""]
    return [
        "What the audit log costs an action: round after round, a Buy created through "
        "the API, then confirmed in its own transaction with its audit entry (as a "
        "device's notification confirms it) or without (alternately, A B, B A); the "
        "entry's cost is the difference of the two closes' medians (a stall of the "
        "machine lands on one sample and would sway a mean).",
        "",
        "| Buy created | close with its entry | close without | the entry | entry / Buy |",
        "|---|---|---|---|---|",
        f"| {beside:.2f} ms | {ms['close audited']:.2f} ms | {ms['close']:.2f} ms | "
        f"{ms['audit']:.2f} ms | {share:.1%} |",
        "",
    ]


def _money(m, goals) -> list[str]:
    withdrawals, sells = m["http"]
    ratio = withdrawals["rps"] / sells["rps"]
    ms = m["inprocess"]
    per_step = ms["settlement"] / 2
    # What the entry adds to a close, against the creations made beside those closes
    # (runs before this stop's measured the entry alone against the creation point).
    beside = ms.get("create beside closes", ms["create"])
    audit_share = ms["audit"] / beside
    goals += [
        (
            "settlement: entry and decision each ≤ a Sell's creation",
            f"{per_step:.1f} vs {ms['sell']:.1f} ms",
            per_step <= ms["sell"],
        ),
        ("audit entry on an action ≤ 5% of a creation", f"{audit_share:.1%}", audit_share <= 0.05),
    ]
    return [
        "Merchant withdrawals (`POST /api/v1/finance/withdrawals`, a fresh Idempotency-Key "
        "each) side by side with Sell creations, 16 clients:",
        "",
        "| point | withdrawals | Sells | ratio | goal |",
        "|---|---|---|---|---|",
        compared(
            goals,
            "withdrawals no slower than Sells (≥ 0.95, noise allowed)",
            "withdrawal",
            withdrawals,
            sells,
            ratio=ratio,
            limit="≥ 0.95",
            ok=ratio >= 0.95,
        ),
        "",
        "In-process (Django's test client, one request after another): a Buy's "
        "creation, a merchant withdrawal, and one audit entry alone, written inside an "
        "open transaction (ten to a transaction, so a tenth of a commit each), the mean "
        "of each; a Sell's creation and a settlement entered by one operator and "
        "approved by another (two requests), round after round, taking turns to go "
        "first, the median of each (the goal compares these two, so they are measured "
        "over the same stretch of time)."
        + (
            " These were measured again on the run's database after the run (the "
            "in-process step alone), with the audit entry measured this way."
            if m.get("inprocess_again")
            else ""
        ),
        "",
        "| Buy | Sell | settlement (entry + decision) | withdrawal | audit entry alone |",
        "|---|---|---|---|---|",
        f"| {ms['create']:.2f} ms | {ms['sell']:.2f} ms | {ms['settlement']:.2f} ms | "
        f"{ms['withdrawal']:.2f} ms | {ms['audit alone' if 'audit alone' in ms else 'audit']:.2f} ms |",
        "",
        *_audit_on_an_action(ms, beside, audit_share),
        f"Non-2xx answers: {withdrawals['errors'] + sells['errors']}; {fmt(withdrawals)}.",
    ]
