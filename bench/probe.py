"""The outside probe: the balance read, Buy order creation and a page of 50 orders, sent
to a service that is already running (`make run`, or a deployment of it) with the demo
data's shop key, in alternating slices; prints each one's rate and its ratio to the
balance read as JSON. This is the black-box view the suite's load generator has; `make
bench` measures the same points on its own server.

    PROBE_URL=http://127.0.0.1:8000 .venv/bin/python -m bench.probe

Start the service with API_RATE_LIMIT raised (say 1000000000/min): the demo key's limit
(1,200 requests a minute by default) is far below what 16 clients send, and the probe
stops at the first 429 rather than measure refusals. With DEBUG off (production
settings) and plain HTTP, also SECURE_SSL_REDIRECT=false: otherwise every call is
answered with a redirect to https. PROBE_CLIENTS (16), PROBE_SECONDS (the seconds of
each point in a round, 6) and PROBE_ROUNDS (3). It creates Buy orders for the demo shop
on the aggregate SBP method, as a merchant would, and leaves them Pending: run it only
against demo data.
"""

import itertools
import json
import os
import sys
import time

import httpx

from .load import alternate, balance, order_list_50, run

KEY = "demo-shop-key"
URL = os.environ.get("PROBE_URL", f"http://127.0.0.1:{os.environ.get('PORT', '8000')}")
CLIENTS = int(os.environ.get("PROBE_CLIENTS", "16"))
SECONDS = float(os.environ.get("PROBE_SECONDS", "6"))
ROUNDS = int(os.environ.get("PROBE_ROUNDS", "3"))


def sbp_method(url: str) -> str:
    """The id of the demo shop's aggregate SBP method (demo-data.md)."""
    answer = httpx.get(f"{url}/api/v1/finance/payment_methods", headers={"X-API-Key": KEY})
    answer.raise_for_status()
    return next(
        m["method_id"] for m in answer.json()["payment_methods"] if m["method_name"] == "SBP"
    )


def creation(method_id: str):
    """Buy orders of distinct amounts (and client order ids), one after the other across
    every slice, from 100.00 to 2,099.99 rubles: small, so that the demo traders'
    working deposits, which each Pending Buy freezes until it closes, last for dozens of
    probes; they start where the clock puts them (200 amounts a second: the range
    comes round in 16 minutes, past the 15 a Pending Buy lives by default), so that a
    later probe on the same data seldom asks for an amount an earlier one's orders
    still hold (the matcher then takes another requisite)."""
    numbers = itertools.count(int(time.time()) * 200)

    def make(client, i):
        n = next(numbers)
        body = {
            "client_order_id": f"probe-{n}",
            "order_side": "Buy",
            "payment_method_id": method_id,
            "amount": f"{100 + n % 200_000 / 100:.2f}",
        }
        return client.post("/api/v1/order/", json=body, headers={"X-API-Key": KEY})

    return make


def probe(url: str = URL) -> dict:
    create = creation(sbp_method(url))
    points = {
        "balance": balance,
        "create": create,
        "list (size=50)": order_list_50(KEY),
    }
    for name, make in points.items():  # warm-up: every process's connections and caches
        if run(make, CLIENTS, 1, base=url)["errors"]:
            raise SystemExit(f"{name}: errors in the warm-up (a 429? see API_RATE_LIMIT above)")
    results = alternate(
        {
            name: lambda s, make=make: run(make, CLIENTS, s, base=url)
            for name, make in points.items()
        },
        SECONDS * ROUNDS,
        ROUNDS,
    )
    base = results["balance"]["rps"]
    return {
        "url": url,
        "clients": CLIENTS,
        **{
            name: {
                "rps": round(r["rps"], 1),
                "p50_ms": round(r["p50"], 1),
                "errors": r["errors"],
                "vs balance": round(r["rps"] / base, 3),
            }
            for name, r in results.items()
        },
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(probe(), indent=1) + "\n")
