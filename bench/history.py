"""History at scale: a terminal's event log with 10 thousand and with 1 million events,
and the operators' dashboard over the orders the scale point loaded (1 million)."""

import httpx

from .config import BASE, SECONDS
from .data import bulk_events, psql
from .load import create_one, run

# Bench 8 takes no other point's orders: its event log is this point's alone.
EVENTS_TERMINAL = "Bench 8"
EVENTS_KEY = {"X-API-Key": "bench-key-8"}


def event_list(client, i):
    return client.get("/api/v1/events", headers=EVENTS_KEY)


def event_history(order_id):
    return lambda client, i: client.get(
        "/api/v1/events", params={"order_id": order_id}, headers=EVENTS_KEY
    )


def events_scale(method_id: str) -> dict:
    """The events list's first page and one order's history (GET /api/v1/events and
    ?order_id=) at 4 clients, with 10 thousand and with 1 million events in the
    terminal's log."""
    order = create_one(method_id, "events-history", key=EVENTS_KEY["X-API-Key"])
    scale = {}
    for label, total in (("10k", 10_000), ("1M", 1_000_000)):
        bulk_events(EVENTS_TERMINAL, total)
        run(event_list, 4, 1)  # warm-up
        scale[label] = {
            "first page": run(event_list, 4),
            "order history": run(event_history(order["id"]), 4),
        }
    return scale


OPERATOR = {"username": "operator", "password": "operator-demo-password"}
PERIODS = {"24h": "24 hours", "7d": "7 days", "30d": "30 days"}


def operator_cookie() -> dict:
    """The demo operator signed in through the admin's sign-in form (ADMIN_2FA is off
    for the bench server). The cookies are Secure (DEBUG off), which a client keeps
    to https, so they are carried by hand over the bench's plain HTTP."""
    page = httpx.get(f"{BASE}/admin/login/")
    token = page.cookies["csrftoken"]
    answer = httpx.post(
        f"{BASE}/admin/login/",
        data={**OPERATOR, "csrfmiddlewaretoken": token, "next": "/admin/"},
        headers={"Cookie": f"csrftoken={token}"},
    )
    if answer.status_code != 302 or "sessionid" not in answer.cookies:
        raise SystemExit(f"operator sign-in: {answer.status_code}")
    return {"Cookie": f"sessionid={answer.cookies['sessionid']}"}


def dashboard_page(period):
    return lambda client, i: client.get("/admin/dashboard/", params={"period": period})


def dashboard() -> dict:
    """/admin/dashboard/ for each period, one request after another for SECONDS each
    (every live terminal, the default), with how many orders each period holds."""
    cookie = operator_cookie()
    out = {}
    for period, interval in PERIODS.items():
        first = httpx.get(
            f"{BASE}/admin/dashboard/", params={"period": period}, headers=cookie, timeout=60
        )
        if first.status_code != 200 or 'data-testid="kpi-orders"' not in first.text:
            raise SystemExit(f"dashboard {period}: {first.status_code}")
        out[period] = run(dashboard_page(period), 1, SECONDS, headers=cookie)
        out[period]["orders"] = int(
            psql(
                f"SELECT count(*) FROM orders_order WHERE created_at >= now() - interval '{interval}'"
            )
        )
    return out
