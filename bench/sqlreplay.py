"""The database's ceiling: the SQL one order creation sends (captured in-process by
`python -m bench.django_side creation-sql`), replayed through psycopg with fresh ids and
amounts, closed loop, one connection per client, with no Django in between."""

import asyncio
import json
import random
import time
import uuid
from contextlib import nullcontext

import psycopg

from .config import DB, PG, SECONDS
from .load import summary
from .processes import django_side


class Creation:
    """The captured statements as templates: every value a replay makes fresh (the
    order's and its event's ids, the client's order id, the amount, the requisite) is
    a marker. Statements that ran inside the creation's transaction are replayed in one
    BEGIN ... COMMIT, the others (the API key read, the method read) each on its own,
    as Django sent them. A statement the service prepares (core.prepared) is replayed
    prepared, its parameters bound on the server; the others as literal text."""

    def __init__(self, captured: dict):
        self.values = captured["values"]
        self.requisites = captured["requisites"]
        self.groups: list[tuple[bool, list]] = []
        for statement in captured["statements"]:
            if "prepared" in statement:
                entry = (
                    statement["prepared"]["sql"],
                    [
                        None if p is None else self._marked(p)
                        for p in statement["prepared"]["params"]
                    ],
                )
            else:
                entry = (self._marked(statement["sql"]), None)
            if self.groups and self.groups[-1][0] == statement["atomic"]:
                self.groups[-1][1].append(entry)
            else:
                self.groups.append((statement["atomic"], [entry]))
        self.statements = len(captured["statements"])
        self.sent = 0
        self.random = random.Random(16)

    def _marked(self, text: str) -> str:
        for name, value in self.values.items():
            text = text.replace(value, f"@@{name}@@")
            if name.endswith("_hex"):  # a parameter carries the id with its dashes
                text = text.replace(str(uuid.UUID(value)), f"@@{name}@@")
        return text

    def fresh(self) -> list[tuple[bool, list]]:
        """One creation's statements with values no other replay used: (atomic, [(sql,
        params or None for literal text)])."""
        self.sent += 1
        order = uuid.UUID(int=self.random.getrandbits(128), version=4)
        values = {
            "order": str(order),
            "order_hex": order.hex,
            "event": f"msg_{uuid.UUID(int=self.random.getrandbits(128), version=4).hex}",
            "client_order_id": f"sql-{self.sent}",
            # Above every amount the HTTP points take (bench.load.AMOUNTS), below the
            # method's largest: no two Pending Buys ever want one (requisite, amount).
            "amount": f"{5000 + self.sent / 100:.2f}",
            "requisite_hex": self.random.choice(self.requisites),
        }

        def filled(text: str) -> str:
            for name in self.values:
                text = text.replace(f"@@{name}@@", values[name])
            return text

        return [
            (
                atomic,
                [
                    (filled(sql), None)
                    if params is None
                    else (sql, [None if p is None else filled(p) for p in params])
                    for sql, params in entries
                ],
            )
            for atomic, entries in self.groups
        ]


def capture(method_id: str) -> Creation:
    return Creation(json.loads(django_side("creation-sql", method_id)))


async def replay_load(creation: Creation, concurrency: int, seconds: float) -> dict:
    """`concurrency` connections (opened before the clock starts), each replaying one
    creation after another; the same result shape as bench.load.load."""
    connections = [
        await psycopg.AsyncConnection.connect(f"{PG}/{DB}", autocommit=True)
        for _ in range(concurrency)
    ]
    latencies: list[float] = []
    errors = 0

    async def worker(connection, stop_at):
        nonlocal errors
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            try:
                for atomic, statements in creation.fresh():
                    async with connection.transaction() if atomic else nullcontext():
                        for sql, params in statements:
                            if params is None:  # literal text, as Django sends it
                                await connection.execute(sql, prepare=False)
                            else:
                                await connection.execute(sql, params, prepare=True)
            except psycopg.Error:
                errors += 1
            latencies.append(time.perf_counter() - started)

    try:
        began = time.perf_counter()
        stop_at = began + seconds
        await asyncio.gather(*(worker(c, stop_at) for c in connections))
        elapsed = time.perf_counter() - began
    finally:
        for connection in connections:
            await connection.close()
    return summary(latencies, elapsed, errors)


def replay(creation: Creation, concurrency: int, seconds: float = SECONDS) -> dict:
    return asyncio.run(replay_load(creation, concurrency, seconds))
