"""What the framework and the database leave for the service: the same gunicorn serving
a bare WSGI app, and the creation's own SQL replayed without Django; and what the
metrics cost, the same server with them on and off."""

from .config import FOURTH, FOURTH_PORT, SECOND, SECOND_PORT, SECONDS, THIRD, THIRD_PORT
from .cpu import metered
from .data import settle_orders
from .load import alternate, balance, create_buy, ping, run
from .processes import start_web, stop
from .sqlreplay import capture, replay

# (clients, seconds, rounds): 16 clients as long as any point, 1, 8 and 32 half as long.
CEILING_CLIENTS = ((16, SECONDS, 3), (1, SECONDS / 2, 2), (8, SECONDS / 2, 2), (32, SECONDS / 2, 2))


def bare(client, i):
    return client.get("/")


def ceilings(method_id: str, web_pid: int) -> dict:
    """Order creation, ping and balance in alternating slices with the two ceilings at
    each number of clients: the bare WSGI app on a second gunicorn (gunicorn.conf.py,
    the same workers x threads) and the creation's SQL through psycopg. At 16 clients
    each slice also counts the CPU each kind of process spent (bench.cpu), `web_pid`
    being the server that answers creation, ping and balance."""
    creation = capture(method_id)
    server = start_web(app="bench.bare_wsgi:app", port=SECOND_PORT)
    points = {}
    try:
        run(bare, 8, 1, base=SECOND)  # warm-up
        for clients, seconds, rounds in CEILING_CLIENTS:
            settle_orders()
            sides = {
                "bare WSGI": (lambda s, c=clients: run(bare, c, s, base=SECOND), server.pid),
                "creation SQL": (lambda s, c=clients: replay(creation, c, s), server.pid),
                "create": (lambda s, c=clients: run(create_buy(method_id), c, s), web_pid),
                "ping": (lambda s, c=clients: run(ping, c, s), web_pid),
                "balance": (lambda s, c=clients: run(balance, c, s), web_pid),
            }
            points[clients] = alternate(
                {
                    name: metered(point, pid) if clients == 16 else point
                    for name, (point, pid) in sides.items()
                },
                seconds,
                rounds,
            )
    finally:
        stop(server)
    settle_orders()
    return {"points": points, "statements": creation.statements}


def metrics_cost(method_id: str) -> dict:
    """Order creation and ping at 16 clients on two servers started for the point, the
    same but for METRICS_ENABLED (on: multiprocess mode, as deployed), in alternating
    slices. Both are new: the bench's own server has by now served minutes of every
    other point, and beside a new one that alone made it a few percent slower. A third,
    the twin of the one with metrics on, runs its own slices as the control: how far
    apart two servers that differ in nothing read in the same run."""
    servers = (
        start_web(port=THIRD_PORT),
        start_web(env={"METRICS_ENABLED": "false"}, port=SECOND_PORT),
        start_web(port=FOURTH_PORT),
    )
    sides = {"on": THIRD, "off": SECOND, "twin": FOURTH}
    try:
        settle_orders()
        for base in sides.values():  # warm-up
            run(ping, 8, 1, base=base)
            run(create_buy(method_id), 8, 1, base=base)
        requests = {"create": lambda: create_buy(method_id), "ping": lambda: ping}
        slices = {
            f"{name} {side}": _slice(make, base)
            for name, make in requests.items()
            for side, base in sides.items()
        }
        both = alternate(slices, SECONDS * 2, rounds=6)
    finally:
        for server in servers:
            stop(server)
    settle_orders()
    return {name: tuple(both[f"{name} {side}"] for side in sides) for name in ("create", "ping")}


def _slice(make, base: str):
    """A slice of 16 clients sending `make()`'s request to the server at `base`."""
    return lambda seconds: run(make(), 16, seconds, base=base)
