"""The wave's new paths, each measured against what it must keep up with in the same
run: creation among 3,000 Pending orders, a device's burst of notifications, 1,000
open cabinets polling, withdrawals and settlements, the audit entry's share."""

import asyncio
import json
import os
import time
from datetime import UTC, datetime

import httpx

from .config import BASE, SECONDS
from .cpu import cpu_seconds
from .data import INSERT_REQUISITE_ORDERS, analyze, loads_recount, psql, settle_orders
from .load import balance, create_buy, create_sell, run, side_by_side, summary
from .processes import children, django_side

HELD = 3000
BURST = 300
CABINETS = 1000
POLL_SECONDS = 2.0  # static/traders/cabinet.js: POLL_MS
CABINET_WINDOW = 20.0
INPROCESS_N = "100"


def fill_pending(method: str, total: int, start: int, requisites: int = 2) -> None:
    """`total` Pending Buys spread over the method's `requisites` requisites, amounts
    from `start` rubles (clear of what the points create), expiring tomorrow."""
    psql(
        f"""
    {INSERT_REQUISITE_ORDERS}
    SELECT gen_random_uuid(), t.id, 'held-' || g, 'RUB', 'Buy', r.method_id, r.method_id,
      r.id, r.trader_id, 'Pending', {start} + g, {start} + g, 5, 0, 50, 2.5, 'H', '+70000000000',
      1, now(), now(), now() + interval '1 day', '', 0, true
    FROM generate_series(1, {total}) g
    JOIN LATERAL (
      SELECT r.* FROM orders_requisite r JOIN finance_paymentmethod m ON m.id = r.method_id
      WHERE m.name = '{method}' ORDER BY r.id OFFSET g % {requisites} LIMIT 1) r ON true,
      (SELECT id FROM finance_terminal WHERE name = 'Demo Shop') t;
    """
    )
    loads_recount()
    analyze()


def held_point(ids: dict) -> tuple[dict, dict]:
    """Creation on a method whose two requisites hold 3,000 Pending Buys, side by side
    with one whose requisites hold 10 (16 clients)."""
    settle_orders()
    fill_pending("Bench Held SBP", HELD, 50_000)
    fill_pending("Bench Quiet SBP", 10, 50_000)
    run(create_buy(ids["quiet"]), 8, 1)  # warm-up
    busy, quiet = side_by_side(create_buy(ids["held"]), create_buy(ids["quiet"]), 16)
    settle_orders()  # the Pending rows must not weigh on the points that follow
    return busy, quiet


def _notification(i: int, amount: int) -> dict:
    return {
        "id": f"bench-{time.time_ns()}-{i}",
        "source": "bench-bank",
        "title": "Перевод",
        "text": f"Поступил перевод {amount} ₽ от Дмитрий В. по номеру телефона",
        "received_at": datetime.now(UTC).isoformat(),
    }


async def _burst(requests, concurrency: int) -> dict:
    """Fixed requests (each a function of the client) sent by `concurrency` clients."""
    latencies, errors, statuses = [], 0, {}
    queue = list(requests)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=BASE, limits=limits, timeout=30) as client:

        async def worker():
            nonlocal errors
            while queue:
                send = queue.pop()
                began = time.perf_counter()
                response = await send(client)
                latencies.append(time.perf_counter() - began)
                errors += response.status_code >= 400
                if response.status_code < 300:
                    status = response.json().get("notification", {}).get("status", "created")
                    statuses[status] = statuses.get(status, 0) + 1

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - began
    result = summary(latencies, elapsed, errors)
    del result["latencies"]
    return {**result, "statuses": statuses}


def _device_round(device: dict, first: int) -> dict:
    """BURST Buys of the device's requisite created (not timed), then one notification
    for each, in a burst of 16 clients (timed)."""
    method, token = device["method"], {"X-Device-Token": device["token"]}
    amounts = [first + k for k in range(BURST)]

    def order(amount):
        body = {
            "client_order_id": f"dev-{amount}",
            "order_side": "Buy",
            "payment_method_id": method,
            "amount": f"{amount}.00",
        }
        return lambda c: c.post("/api/v1/order/", json=body, headers={"X-API-Key": "demo-shop-key"})

    made = asyncio.run(_burst([order(a) for a in amounts], 16))
    if made["errors"]:
        raise SystemExit(f"device orders: {made['errors']} errors")

    def notify(k, amount):
        body = _notification(k, amount)
        return lambda c: c.post("/api/v1/device/notifications", json=body, headers=token)

    return asyncio.run(_burst([notify(k, a) for k, a in enumerate(amounts)], 16))


DEVICE_ROUNDS = 4


def notifications_point(ids: dict) -> dict:
    """Four rounds, each of a 300-notification burst from one device, the same burst
    from a second device whose requisite holds 3,000 more Pending Buys (of other
    amounts), and a slice of the balance read at 16 clients: the three side by side,
    the two devices taking turns to go first (A B, B A), so that neither always runs
    on what the other's burst left behind."""
    settle_orders()
    fill_pending("Bench Crowded SBP", HELD, 60_000, requisites=1)
    rounds, crowded, balances = [], [], []
    for k in range(DEVICE_ROUNDS):
        turns = [("device", rounds, 1000), ("crowded", crowded, 5000)]
        for name, into, first in turns if k % 2 == 0 else turns[::-1]:
            into.append(_device_round(ids[name], first + k * BURST))
        balances.append(run(balance, 16, SECONDS / 3))
    settle_orders()
    return {"bursts": rounds, "balance": balances, "crowded": crowded}


async def _first_polls(sessions: list[str], cookie: str) -> list[str]:
    """Each cabinet's first poll (its list, 200) and the ETag it answered with."""
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    gate = asyncio.Semaphore(16)
    async with httpx.AsyncClient(base_url=BASE, limits=limits, timeout=30) as client:

        async def first(key: str) -> str:
            async with gate:
                response = await client.get(
                    "/trader/orders/live/", headers={"Cookie": f"{cookie}={key}"}
                )
            return response.headers["ETag"]

        return await asyncio.gather(*(first(key) for key in sessions))


async def _cabinets(sessions: list[str], etags: list[str], cookie: str, seconds: float) -> dict:
    """Each session an open cabinet: a conditional poll every POLL_SECONDS, the first
    after a part of the interval (pages are not opened in step)."""
    statuses: dict[int, int] = {}
    stop_at = time.perf_counter() + seconds
    # Most of the 64 connections sit idle between polls: let them go before the server's
    # keep-alive (5 s, gunicorn.conf.py) does, or one taken up just as the server closes
    # it fails with a ReadError.
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64, keepalive_expiry=2)
    async with httpx.AsyncClient(base_url=BASE, limits=limits, timeout=30) as client:

        async def cabinet(n: int, key: str, etag: str):
            await asyncio.sleep(POLL_SECONDS * n / len(sessions))
            headers = {"Cookie": f"{cookie}={key}", "If-None-Match": etag}
            while time.perf_counter() < stop_at:
                response = await client.get("/trader/orders/live/", headers=headers)
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                headers["If-None-Match"] = response.headers.get("ETag", etag)
                await asyncio.sleep(POLL_SECONDS)

        await asyncio.gather(
            *(
                cabinet(n, key, etag)
                for n, (key, etag) in enumerate(zip(sessions, etags, strict=True))
            )
        )
    return statuses


def cabinets_point(web_pid: int) -> dict:
    """The web processes' CPU at rest, then over CABINET_WINDOW seconds of 1,000 open
    cabinets polling (each has loaded its list before); and the SQL of a poll answered
    304."""
    made = json.loads(django_side("cabinet-sessions", str(CABINETS)))
    etags = asyncio.run(_first_polls(made["sessions"], made["cookie"]))
    pids = [web_pid, *children(web_pid)]
    began = cpu_seconds(pids)
    time.sleep(CABINET_WINDOW / 2)
    idle = (cpu_seconds(pids) - began) / (CABINET_WINDOW / 2)
    began, wall = cpu_seconds(pids), time.perf_counter()
    statuses = asyncio.run(_cabinets(made["sessions"], etags, made["cookie"], CABINET_WINDOW))
    wall = time.perf_counter() - wall
    busy = (cpu_seconds(pids) - began) / wall
    return {
        "idle_cpu": idle,
        "cpu": busy,
        "cores": os.cpu_count(),
        "statuses": statuses,
        "wall": wall,
        "poll": json.loads(django_side("cabinet-poll-sql")),
    }


def withdrawal(client, i):
    body = {"amount": "1.00", "destination": "bench account"}
    headers = {"X-API-Key": "demo-shop-key", "Idempotency-Key": f"bench-w-{time.time_ns()}-{i}"}
    return client.post("/api/v1/finance/withdrawals", json=body, headers=headers)


def money_point(method_id: str) -> dict:
    """Merchant withdrawals against Sells at 16 clients, side by side; and in-process
    the mean cost of a creation, a Sell, a settlement entered and decided, a
    withdrawal and one audit entry."""
    settle_orders()
    http = side_by_side(withdrawal, create_sell(method_id, ["demo-shop-key"]), 16)
    return {"http": http, "inprocess": json.loads(django_side("inprocess-costs", INPROCESS_N))}


def new_paths(method_id: str, web_pid: int) -> dict:
    ids = json.loads(django_side("paths-setup"))
    return {
        "held": held_point(ids),
        "notifications": notifications_point(ids),
        "cabinets": cabinets_point(web_pid),
        "money": money_point(method_id),
    }
