#!/usr/bin/env python3
"""Backup and restore drill (`make restore-drill`), start to finish on a private
PostgreSQL cluster, so it can run anywhere without touching a shared server:

1. a source database: migrated, demo data, served by gunicorn;
2. load: merchants create Buy and Sell orders (webhooks to a receiver this script
   runs), traders confirm, merchants cancel; no worker runs, so deliveries pile up
   in the outbox as they would while workers are behind;
3. `pg_dump -Fc` of the source *while the load runs* (one consistent snapshot);
4. `pg_restore` into a fresh database;
5. `check_ledger` on the restored database must be clean;
6. a Celery worker with beat on the restored database must deliver every event the
   outbox held to the receiver, each with a valid signature.

The same pg_dump / pg_restore / check_ledger commands make the production drill
(docs/reliability.md). Exit status 0 only if every step held.
"""

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from core.tests.reliability import stack  # noqa: E402

SHOP = {"X-API-Key": "demo-shop-key"}
TRADERS = [{"X-API-Key": f"demo-trader-{i}-key"} for i in (1, 2, 3)]
SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="


def say(message: str) -> None:
    sys.stdout.write(f"[{time.strftime('%H:%M:%S')}] {message}\n")
    sys.stdout.flush()


class Load:
    """Merchants and traders at work until stopped; counts what was answered."""

    def __init__(self, base: str, hook: str):
        self.base, self.hook = base, hook
        self.stopped = threading.Event()
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._merchant, args=(n,), daemon=True) for n in range(3)
        ] + [threading.Thread(target=self._traders, daemon=True)]

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.stopped.set()
        for thread in self.threads:
            thread.join()

    def _merchant(self, n: int) -> None:
        rng = random.Random(n)
        with httpx.Client(base_url=self.base, headers=SHOP, timeout=30) as http:
            i = 0
            while not self.stopped.is_set():
                i += 1
                body = stack.order_body(
                    f"drill-{n}-{i}",
                    rng.randrange(500, 5000),
                    sell=rng.random() < 0.3,
                    hook=self.hook,
                )
                response = http.post("/api/v1/order/", json=body)
                self.count(f"create {response.status_code}")
                if response.status_code == 201 and rng.random() < 0.15:
                    order_id = response.json()["id"]
                    cancel = http.post(f"/api/v1/order/{order_id}/cancel")
                    self.count(f"cancel {cancel.status_code}")

    def _traders(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stopped.is_set():
                for key in TRADERS:
                    pending = http.get(
                        "/api/v1/trader/orders", params={"status": "Pending"}, headers=key
                    ).json()
                    for order in pending["orders"]["items"][:5]:
                        done = http.post(
                            f"/api/v1/trader/orders/{order['id']}/confirm", headers=key
                        )
                        self.count(f"confirm {done.status_code}")


def drill(seconds: float, workdir: Path) -> list[str]:
    failures: list[str] = []
    pg = stack.PrivatePostgres()
    pg.start()
    say(f"private PostgreSQL on port {pg.port} ({pg.data})")
    receiver = stack.Receiver(SECRET)
    gunicorn = worker = None
    try:
        pg.createdb("drill_source")
        source = {"DATABASE_URL": pg.url("drill_source"), "VAR_DIR": str(workdir / "source")}
        stack.manage("migrate", "--noinput", env=source)
        stack.manage("seed_demo", "--force", env=source)
        port = stack.free_port()
        gunicorn = stack.start_gunicorn(
            port=port, env=source, log=workdir / "gunicorn.log", workers=2, threads=4
        )
        say(f"source served by gunicorn on {port}; load for {seconds:.0f} s")
        load = Load(f"http://127.0.0.1:{port}", receiver.url)
        load.start()
        time.sleep(seconds / 2)
        dump = workdir / "source.dump"
        started = time.monotonic()
        stack.run_checked(
            [str(stack.PG_BIN / "pg_dump"), "-Fc", "-f", str(dump), pg.url("drill_source")]
        )
        say(
            f"pg_dump during load: {dump.stat().st_size} bytes in {time.monotonic() - started:.1f} s"
        )
        time.sleep(seconds / 2)
        load.stop()
        stack.stop(gunicorn)
        gunicorn = None
        say(f"load answered: {dict(sorted(load.counts.items()))}")

        pg.createdb("drill_restored")
        started = time.monotonic()
        stack.run_checked(
            [str(stack.PG_BIN / "pg_restore"), "--no-owner", "--exit-on-error"]
            + ["-d", pg.url("drill_restored"), str(dump)]
        )
        say(f"pg_restore into a fresh database: {time.monotonic() - started:.1f} s")
        restored = {"DATABASE_URL": pg.url("drill_restored"), "VAR_DIR": str(workdir / "restored")}

        ledger = stack.manage("check_ledger", env=restored, check=False)
        say(
            f"check_ledger on the restored database: {ledger.stdout.strip() or ledger.stderr.strip()}"
        )
        if ledger.returncode != 0:
            failures.append(f"check_ledger: {ledger.stderr.strip()}")

        orders = pg.psql("drill_restored", "SELECT count(*) FROM orders_order")
        events = set(pg.psql("drill_restored", "SELECT id FROM webhooks_webhookevent").split())
        due = int(
            pg.psql(
                "drill_restored",
                "SELECT count(*) FROM webhooks_webhookdelivery WHERE state = 'pending'",
            )
        )
        say(f"restored: {orders} orders, {len(events)} events, {due} deliveries due")
        if not events or not due:
            failures.append("the dump holds no pending deliveries: the drill proves nothing")

        worker = stack.spawn_worker(env=restored, log=workdir / "worker.log")
        deadline = time.monotonic() + max(120.0, due * 0.5)
        while time.monotonic() < deadline:
            left = int(
                pg.psql(
                    "drill_restored",
                    "SELECT count(*) FROM webhooks_webhookdelivery WHERE state <> 'succeeded'",
                )
            )
            if left == 0 and events <= set(receiver.by_id):
                break
            time.sleep(1)
        missing = events - set(receiver.by_id)
        say(
            f"outbox after restore: {len(events) - len(missing)} of {len(events)} events "
            f"delivered, {len(receiver.problems)} bad signatures"
        )
        if missing:
            failures.append(f"{len(missing)} events never delivered after the restore")
        if receiver.problems:
            failures.append(f"receiver: {receiver.problems[:3]}")
    finally:
        for process in (gunicorn, worker):
            if process is not None:
                stack.stop(process)
        receiver.close()
        pg.destroy()
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="length of the load")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="restore-drill-") as tmp:
        failures = drill(args.seconds, Path(tmp))
    for failure in failures:
        say(f"FAILED: {failure}")
    say("restore drill: " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
