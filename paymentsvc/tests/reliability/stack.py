"""Real processes for the reliability tests: gunicorn, nginx, PostgreSQL and Redis,
each started by the test on a free port of its own and stopped by it (the shared
PostgreSQL and Redis are never touched)."""

import getpass
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PROXY_CONF = ROOT / "deploy" / "nginx" / "paymentsvc.conf"
# The ports these tests may take (and a private instance's, further up).
PORTS = range(int(os.environ.get("RELIABILITY_PORT_FROM", 18190)), 18200)


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
