"""The server's processes: manage.py commands, gunicorn and the worker, and the
memory they hold."""

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx

from .config import BASE, ENV, PORT, PY, ROOT

PROCESSES: list[subprocess.Popen] = []


def manage(*args, check=True):
    return subprocess.run(
        [PY, "manage.py", *args], cwd=ROOT, env=ENV, check=check, capture_output=True, text=True
    )


def django_side(*args: str) -> str:
    """The last line `python -m bench.django_side ARGS` prints (it runs inside Django)."""
    out = subprocess.run(
        [PY, "-m", "bench.django_side", *args],
        cwd=ROOT,
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return out.splitlines()[-1] if out else ""


def start(cmd: list[str], env: dict | None = None) -> subprocess.Popen:
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**ENV, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    PROCESSES.append(proc)
    return proc


def stop_all():
    for proc in PROCESSES:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for proc in PROCESSES:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def rss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def wait_ready(base: str = BASE):
    for _ in range(120):
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit("the server did not become ready")


GUNICORN = [PY, "-m", "gunicorn", "-c", "gunicorn.conf.py"]
# Worker recycling is off for the bench: a recycled worker would hide a leak from the
# memory figure and put start-up time into a throughput point.
NO_RECYCLING = ["--max-requests", "0"]
# (workers, threads) tried against each other; the first is gunicorn.conf.py's default
# on this machine (cores + 1 workers x 2 threads).
CONFIGS = [
    (os.cpu_count() + 1, 2),
    (os.cpu_count() + 1, 1),
    (os.cpu_count() + 1, 4),
    (2, 8),
    (5, 1),
]


def start_web(
    *flags: str, env: dict | None = None, app: str = "paymentsvc.wsgi", port: int = PORT
) -> subprocess.Popen:
    """gunicorn with gunicorn.conf.py serving `app`; on another port than PORT it runs
    beside the first server (its own address, no control socket)."""
    beside = [] if port == PORT else ["--bind", f"127.0.0.1:{port}", "--no-control-socket"]
    web = start([*GUNICORN, *NO_RECYCLING, *beside, *flags, app], env=env)
    wait_ready(f"http://127.0.0.1:{port}")
    return web


def stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    PROCESSES.remove(proc)
