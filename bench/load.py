"""Closed-loop HTTP load from this process, and the requests it sends."""

import asyncio
import statistics
import time

import httpx

from .config import BASE, SECONDS, SHOP


async def load(
    make_request, concurrency: int, seconds: float = SECONDS, base: str = BASE, headers=None
) -> dict:
    """Closed-loop load: `concurrency` clients, each sending as soon as it has an answer."""
    latencies: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(
        base_url=base, limits=limits, timeout=30, headers=headers
    ) as client:
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
    return summary(latencies, elapsed, errors)


def summary(latencies: list[float], elapsed: float, errors: int) -> dict:
    """Throughput and latency percentiles of one closed-loop slice."""
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


def run(make_request, concurrency, seconds=SECONDS, base=BASE, headers=None):
    return asyncio.run(load(make_request, concurrency, seconds, base, headers))


def merge(parts: list[dict]) -> dict:
    """One result from several slices of the same load."""
    n = sum(p["n"] for p in parts)
    elapsed = sum(p["n"] / p["rps"] for p in parts)
    latencies = sorted(x for p in parts for x in p["latencies"])
    cpu = [p["cpu"] for p in parts if "cpu" in p]  # bench.cpu.metered slices
    return {
        "rps": n / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[max(int(len(latencies) * 0.99) - 1, 0)] * 1000,
        "n": n,
        "errors": sum(p["errors"] for p in parts),
        # each slice's own throughput, in the order taken: paired_ratio's rounds
        "rounds": [p["rps"] for p in parts],
        **({"cpu": {k: sum(c[k] for c in cpu) for k in cpu[0]}} if cpu else {}),
    }


def alternate(points: dict, seconds=SECONDS, rounds=3) -> dict[str, dict]:
    """Each point (a function of a slice's length returning its result) in turn, for
    `rounds` rounds, so that whatever else the machine is doing at the time weighs on
    all alike; one merged result per point. Every other round takes the points in the
    reverse order (A B, B A, A B, ...): a machine slowing or speeding up through the
    point, or a slice that leaves the next one more to do, weighs on neither side."""
    slices: dict[str, list] = {name: [] for name in points}
    order = list(points.items())
    for k in range(rounds):
        for name, point in order if k % 2 == 0 else order[::-1]:
            slices[name].append(point(seconds / rounds))
    return {name: merge(parts) for name, parts in slices.items()}


def paired_ratio(first: dict, second: dict) -> float:
    """second / first as the median of the rounds' own ratios (merged results of one
    `alternate`, whose slices of a round ran one right after the other): a stall of the
    machine that lands on one slice sways one round's ratio, not the whole point's."""
    return statistics.median(b / a for a, b in zip(first["rounds"], second["rounds"], strict=True))


def side_by_side(target, baseline, concurrency, seconds=SECONDS, rounds=3) -> tuple[dict, dict]:
    """The target and its baseline in alternating slices."""
    both = alternate(
        {
            "target": lambda s: run(target, concurrency, s),
            "baseline": lambda s: run(baseline, concurrency, s),
        },
        seconds,
        rounds,
    )
    return both["target"], both["baseline"]


def ping(client, i):
    return client.get("/api/v1/ping", headers=SHOP)


def balance(client, i):
    return client.get("/api/v1/finance/balance", headers=SHOP)


def order_list(client, i):
    return client.get("/api/v1/order/", headers=SHOP)


def order_list_50(key):
    return lambda client, i: client.get(
        "/api/v1/order/", params={"size": 50}, headers={"X-API-Key": key}
    )


def search_as(key, client_order_id):
    return lambda client, i: client.get(
        "/api/v1/order/search-by-client-order-id",
        params={"id": client_order_id},
        headers={"X-API-Key": key},
    )


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


def create_one(method_id: str, client_order_id: str, key: str = "demo-shop-key") -> dict:
    """One Buy order, created before a point begins (an order for it to read)."""
    body = {
        "client_order_id": client_order_id,
        "order_side": "Buy",
        "payment_method_id": method_id,
        "amount": AMOUNTS.take(),
    }
    return httpx.post(f"{BASE}/api/v1/order/", headers={"X-API-Key": key}, json=body).json()


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


def availability(method_id, key="demo-shop-key"):
    """POST /api/v1/order/availability with a creation's body: creation's checks and
    matcher query, nothing written."""

    def make(client, i):
        body = {"order_side": "Buy", "payment_method_id": method_id, "amount": AMOUNTS.take()}
        return client.post("/api/v1/order/availability", json=body, headers={"X-API-Key": key})

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
