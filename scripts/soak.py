#!/usr/bin/env python3
"""Soak test (`make soak`): mixed load for a long time on a stack of its own, with a
report every minute of what could leak.

The stack: a private PostgreSQL and Redis, gunicorn (3 processes x 2 threads, as in
production), a Celery worker with beat, and a webhook receiver. The load: merchants
creating Buy and Sell orders and form sessions, reading lists, opening disputes with
evidence; traders confirming; webhooks delivered. Every minute: web and worker memory
(RSS of all their processes) and open file descriptors, PostgreSQL connections, the
broker's queue length and the deliveries still pending in the outbox. At the end the
last third of the run is compared with the first minutes after warm-up; growth beyond
the allowance is reported and the exit status is 1.
"""

import argparse
import io
import random
import shutil
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
FORM = {"X-API-Key": "demo-form-key"}
TRADERS = [{"X-API-Key": f"demo-trader-{i}-key"} for i in (1, 2, 3)]
SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="
# What may grow between the warm-up sample and the end before it counts as a leak.
ALLOWANCE = {"web_rss_mb": 0.25, "worker_rss_mb": 0.25, "web_fds": 0.25, "pg_conns": 0.0}


def say(message: str) -> None:
    sys.stdout.write(f"[{time.strftime('%H:%M:%S')}] {message}\n")
    sys.stdout.flush()


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (9, 9, 9)).save(buf, "PNG")
    return buf.getvalue()


def family(pid: int) -> list[int]:
    """A process and all its descendants."""
    children = {}
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(status.parent.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(children.get(current, []))
    return out


def rss_mb(pids) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def fds(pids) -> int:
    count = 0
    for pid in pids:
        try:
            count += len(list(Path(f"/proc/{pid}/fd").iterdir()))
        except OSError:
            pass
    return count


class Load:
    def __init__(self, base: str, hook: str, clients: int):
        self.base, self.hook = base, hook
        self.stopped = threading.Event()
        self.answers: dict[str, int] = {}
        self.lock = threading.Lock()
        self.png = _png()
        self.threads = [
            threading.Thread(target=self._merchant, args=(n,), daemon=True) for n in range(clients)
        ] + [threading.Thread(target=self._traders, daemon=True)]

    def count(self, what: str, response: httpx.Response) -> None:
        key = f"{what} {response.status_code}"
        with self.lock:
            self.answers[key] = self.answers.get(key, 0) + 1

    def _merchant(self, n: int) -> None:
        rng = random.Random(n)
        i = 0
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stopped.is_set():
                i += 1
                try:
                    self._one(http, rng, f"soak-{n}-{i}")
                except httpx.HTTPError as exc:
                    with self.lock:
                        key = f"error {type(exc).__name__}"
                        self.answers[key] = self.answers.get(key, 0) + 1
                time.sleep(0.05)

    def _one(self, http, rng, client_order_id):
        roll = rng.random()
        if roll < 0.45:
            body = stack.order_body(
                client_order_id, rng.randrange(100, 20000), sell=rng.random() < 0.2, hook=self.hook
            )
            if body["order_side"] == "Sell":
                body["amount"] = str(max(500, int(body["amount"])))
            response = http.post("/api/v1/order/", json=body, headers=SHOP)
            self.count("create", response)
            if response.status_code == 201 and rng.random() < 0.1:
                dispute = http.post(
                    "/api/v1/disputes/create",
                    data={"order_id": response.json()["id"], "amount": "100"},
                    files=[("files", ("e.png", self.png, "image/png"))],
                    headers=SHOP,
                )
                self.count("dispute", dispute)
        elif roll < 0.6:
            body = {
                "order_data": {
                    "client_order_id": client_order_id,
                    "order_side": "Buy",
                    "amount": str(rng.randrange(1000, 5000)),
                    "button_name": rng.choice(["SberPay", "TPay"]),
                    "unique_amount": True,
                }
            }
            response = http.post("/api/v1/form/create", json=body, headers=FORM)
            self.count("form", response)
            if response.status_code == 201:
                page = http.get(response.json()["form_data"]["form_url"])
                self.count("form page", page)
        else:
            path = rng.choice(
                [
                    "/api/v1/order/?size=50",
                    "/api/v1/finance/transactions?size=50",
                    "/api/v1/disputes/search",
                    "/api/v1/finance/balance",
                ]
            )
            self.count("read", http.get(path, headers=SHOP))

    def _traders(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stopped.is_set():
                for key in TRADERS:
                    try:
                        listed = http.get(
                            "/api/v1/trader/orders", params={"status": "Pending"}, headers=key
                        ).json()
                        for order in listed["orders"]["items"][:5]:
                            verb = "confirm" if random.random() < 0.8 else "cancel"
                            self.count(
                                verb,
                                http.post(
                                    f"/api/v1/trader/orders/{order['id']}/{verb}", headers=key
                                ),
                            )
                    except httpx.HTTPError:
                        pass
                time.sleep(0.5)

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopped.set()
        for thread in self.threads:
            thread.join()


def soak(minutes: float, clients: int) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="soak-"))
    pg = stack.PrivatePostgres()
    pg.start()
    redis = stack.PrivateRedis(workdir)
    redis.start()
    receiver = stack.Receiver(SECRET)
    web = worker = None
    try:
        pg.createdb("soak")
        port = stack.free_port()
        env = {
            "DATABASE_URL": pg.url("soak"),
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis.port}/0",
            "CACHE_URL": f"redis://127.0.0.1:{redis.port}/1",
            "VAR_DIR": str(workdir / "var"),
            "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        }
        stack.manage("migrate", "--noinput", env=env)
        stack.manage("seed_demo", "--force", env=env)
        web = stack.start_gunicorn(
            port=port, env=env, log=workdir / "web.log", workers=3, threads=2
        )
        worker = stack.spawn_worker(env=env, log=workdir / "worker.log")
        say(f"stack up: PostgreSQL :{pg.port}, Redis :{redis.port}, gunicorn :{port}; {workdir}")
        load = Load(f"http://127.0.0.1:{port}", receiver.url, clients)
        load.start()
        samples = []
        started = time.monotonic()
        for minute in range(1, int(minutes) + 1):
            time.sleep(max(0.0, started + 60 * minute - time.monotonic()))
            web_pids, worker_pids = family(web.pid), family(worker.pid)
            sample = {
                "web_rss_mb": round(rss_mb(web_pids), 1),
                "web_fds": fds(web_pids),
                "worker_rss_mb": round(rss_mb(worker_pids), 1),
                "worker_fds": fds(worker_pids),
                "pg_conns": int(
                    pg.psql(
                        "postgres", "SELECT count(*) FROM pg_stat_activity WHERE datname='soak'"
                    )
                ),
                "queue": int(redis.run("-n", "0", "llen", "celery") or 0),
                "outbox_pending": int(
                    pg.psql(
                        "soak",
                        "SELECT count(*) FROM webhooks_webhookdelivery WHERE state = 'pending'",
                    )
                ),
                "orders": int(pg.psql("soak", "SELECT count(*) FROM orders_order")),
                "received": len(receiver.by_id),
            }
            samples.append(sample)
            say(f"minute {minute}: " + ", ".join(f"{k} {v}" for k, v in sample.items()))
        load.stop()
        say(f"answers: {dict(sorted(load.answers.items()))}")
        return verdict(samples, load.answers)
    finally:
        for process in (worker, web):
            if process is not None:
                stack.stop(process)
        redis.kill()
        receiver.close()
        pg.destroy()
        shutil.rmtree(workdir, ignore_errors=True)


def verdict(samples: list[dict], answers: dict) -> int:
    problems = []
    bad = {k: v for k, v in answers.items() if k.split()[-1].startswith("5") or "error" in k}
    bad = {k: v for k, v in bad.items() if not k.startswith("create 500")}  # no traders
    if bad:
        problems.append(f"unexpected answers: {bad}")
    if len(samples) >= 3:
        warm = samples[min(1, len(samples) - 1)]
        tail = samples[-max(1, len(samples) // 3) :]
        for key, allowance in ALLOWANCE.items():
            end = max(s[key] for s in tail)
            limit = warm[key] * (1 + allowance) + (2 if key == "pg_conns" else 0)
            if end > limit:
                problems.append(f"{key} grew from {warm[key]} to {end} (limit {limit:.1f})")
        backlog = [s["queue"] + s["outbox_pending"] for s in tail]
        if backlog and min(backlog) > 200:
            problems.append(f"deliveries fall behind: {backlog}")
    for problem in problems:
        say(f"FAILED: {problem}")
    if problems:
        say("soak: FAILED")
    elif len(samples) < 3:
        say("soak: no errors; too short to judge growth (3 minutes at least)")
    else:
        say("soak: flat: memory, descriptors and connections bounded")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    return soak(args.minutes, args.clients)


if __name__ == "__main__":
    sys.exit(main())
