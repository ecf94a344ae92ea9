"""Real processes for the reliability tests: gunicorn, nginx, PostgreSQL and Redis,
each started by the test on a free port of its own and stopped by it (the shared
PostgreSQL and Redis are never touched)."""

import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PROXY_CONF = ROOT / "deploy" / "nginx" / "paymentsvc.conf"


def worker_ports(first: int, count: int) -> range:
    """`count` ports from `first`, moved up by `count` for each parallel test worker
    before this one (pytest-xdist's gw0, gw1, ...): two workers never probe the same
    port, so neither can take one the other has found free and not yet bound."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    start = first + (int(worker) if worker.isdigit() else 0) * count
    return range(start, start + count)


# The ports these tests may take (and a private instance's, further up).
PORTS = worker_ports(int(os.environ.get("RELIABILITY_PORT_FROM", 18190)), 10)


def free_port(ports=PORTS) -> int:
    for port in ports:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports}")


def database_url() -> str:
    """The URL of the test database, for processes started outside pytest."""
    from webhooks.tests.test_worker_and_broker import _database_url

    return _database_url()


def wait_for(url: str, seconds: float = 30, status: int | None = 200) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if status is None or httpx.get(url, timeout=2).status_code == status:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer within {seconds} s")
        time.sleep(0.2)


def stop(process: subprocess.Popen, sig=signal.SIGTERM, seconds: float = 15) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        return
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def start_gunicorn(*, port: int, env: dict, log: Path, workers=1, threads=2) -> subprocess.Popen:
    """gunicorn with the project's own gunicorn.conf.py, sized down so that a handful
    of held requests would starve it."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "paymentsvc.test_settings",
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_THREADS": str(threads),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        **env,
    }
    return spawn(
        [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "paymentsvc.wsgi"],
        env=environment,
        log=log,
        ready=f"http://127.0.0.1:{port}/healthz",
    )


def spawn(command: list[str], *, env=None, log: Path, ready: str) -> subprocess.Popen:
    """Start a process in its own session and wait until `ready` answers 200."""
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for(ready)
    except TimeoutError:
        stop(process)
        raise
    return process


def nginx_config(*, port: int, upstream: str, workdir: Path) -> Path:
    """deploy/nginx/paymentsvc.conf as production runs it, with only its listening
    port and upstream address changed, inside a main file that keeps every path
    (pid, logs, temporary bodies) in `workdir`."""
    server = PROXY_CONF.read_text()
    server = server.replace("server web:8000;", f"server {upstream};")
    server = server.replace("listen 80;", f"listen 127.0.0.1:{port};")
    (workdir / "paymentsvc.conf").write_text(server)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (workdir / sub).mkdir(exist_ok=True)
    main = workdir / "nginx.conf"
    main.write_text(
        f"""
user {getpass.getuser()};
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log warn;
daemon off;
events {{ worker_connections 1024; }}
http {{
    access_log {workdir}/access.log;
    default_type application/octet-stream;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
    include {workdir}/paymentsvc.conf;
}}
"""
    )
    return main


def start_nginx(*, port: int, upstream: str, workdir: Path) -> subprocess.Popen:
    config = nginx_config(port=port, upstream=upstream, workdir=workdir)
    check = subprocess.run(
        [NGINX, "-t", "-q", "-c", str(config), "-p", str(workdir)],
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        raise RuntimeError(f"nginx refused the configuration: {check.stderr}")
    return spawn(
        [NGINX, "-c", str(config), "-p", str(workdir)],
        log=workdir / "nginx.out",
        ready=f"http://127.0.0.1:{port}/healthz",
    )


def nginx_available() -> bool:
    return Path(NGINX).exists()


PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
PRIVATE_PG_PORTS = worker_ports(25432, 8)
PRIVATE_REDIS_PORTS = worker_ports(26379, 11)


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the postgres user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def run_checked(command: list[str]) -> str:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()[-2000:]}")
    return result.stdout


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own (a temporary directory, a free port in
    25432-25439), which it may stop, restart or kill at will."""

    def __init__(self):
        # Its own directory: the postgres user must be able to reach it, and a test's
        # tmp_path is private to the user running the tests.
        self.root = Path(tempfile.mkdtemp(prefix="private-pg-"))
        self.data = self.root / "pgdata"
        self.port = free_port(PRIVATE_PG_PORTS)
        os.chmod(self.root, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        run_checked(
            _as_postgres(
                [str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"]
                + ["--no-sync", "-E", "UTF8", "--locale", "C.UTF-8"]
            ),
        )

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} "
            "-c fsync=off -c max_connections=100"
        )
        run_checked(
            _as_postgres(
                [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options]
                + ["-l", str(self.root / "postgres.log"), "-w", "-t", "60", "start"]
            )
        )

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"]),
            capture_output=True,
        )

    def psql(self, database: str, sql: str) -> str:
        return run_checked(
            [str(PG_BIN / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
            + ["-d", database, "-tAc", sql]
        ).strip()

    def createdb(self, name: str) -> None:
        self.psql("postgres", f'CREATE DATABASE "{name}"')

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def manage(*args: str, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    """`manage.py <args>` in a process of its own, against `env`'s database."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "paymentsvc.test_settings", **env},
        check=check,
        capture_output=True,
        text=True,
    )


class Receiver:
    """A merchant's webhook endpoint: verifies every signature and keeps every
    delivery by its webhook-id (a repeat must be the same event)."""

    def __init__(self, secret: str):
        from standardwebhooks.webhooks import Webhook

        self.verifier = Webhook(secret)
        self.lock = threading.Lock()
        self.by_id: dict[str, dict] = {}
        self.by_order: dict[str, dict[str, tuple[int, str]]] = {}
        self.problems: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.take(body, dict(self.headers))
                # One write: a separate body would wait on the sender's delayed ACK.
                self.wfile.write(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                )
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def take(self, body: bytes, headers: dict):
        headers = {k.lower(): v for k, v in headers.items()}
        try:
            self.verifier.verify(body, headers)
        except Exception as exc:
            self.problems.append(f"bad signature on {headers.get('webhook-id')}: {exc}")
            return
        event = json.loads(body)
        with self.lock:
            seen = self.by_id.setdefault(headers["webhook-id"], event)
            if seen != event:
                self.problems.append(f"{headers['webhook-id']} delivered with two bodies")
            order_id = event["data"]["order"]["id"]
            self.by_order.setdefault(order_id, {})[headers["webhook-id"]] = (
                event["sequence"],
                event["type"],
            )

    def events_of(self, order_id: str) -> list[tuple[int, str]]:
        with self.lock:
            return sorted(self.by_order.get(order_id, {}).values())

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def spawn_worker(*, env: dict, log: Path) -> subprocess.Popen:
    """A Celery worker with an embedded beat, as `make run` runs them."""
    process = subprocess.Popen(
        [str(BIN / "celery"), "-A", "paymentsvc", "worker", "--beat"]
        + ["--schedule", str(log.with_suffix(".beat")), "--concurrency", "2"]
        + ["--without-mingle", "--without-gossip", "--loglevel", "WARNING"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "paymentsvc.test_settings", **env},
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return process


def order_body(client_order_id: str, amount, *, sell: bool = False, hook: str | None = None):
    """An order the demo data can always place: a Buy on the aggregate SBP method with
    `unique_amount`, or a Sell on Sberbank SBP to a valid phone."""
    body = {"client_order_id": client_order_id, "amount": str(amount)}
    if sell:
        body |= {
            "order_side": "Sell",
            "method_type": "SBP",
            "nspk_code": "100000000111",
            "customer_account": "+79991234567",
        }
    else:
        body |= {"order_side": "Buy", "method_type": "SBP", "unique_amount": True}
    if hook:
        body["webhook_url"] = hook
    return body


class PrivateRedis:
    """A redis-server of the test's own on a free port in 26379-26389."""

    def __init__(self, workdir: Path):
        self.port = free_port(PRIVATE_REDIS_PORTS)
        self.workdir = workdir
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=(self.workdir / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while (
            subprocess.run(
                ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
            ).stdout.strip()
            != "PONG"
        ):
            assert time.monotonic() < deadline, "private redis did not start"
            time.sleep(0.1)

    def kill(self):
        stop(self.process, sig=signal.SIGKILL)

    def run(self, *command: str) -> str:
        return run_checked(["redis-cli", "-p", str(self.port), *command]).strip()
