"""PgBouncer in transaction mode between the service and PostgreSQL: the service must
work through it (no server-side cursors, no session state), and the bench measures
what it costs."""

import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

import httpx

from .config import BASE, DB, PORT
from .processes import start

PGBOUNCER_PORT = PORT + 2


def start_pgbouncer():
    """Debian's pgbouncer on PGBOUNCER_PORT in transaction mode, or None if it is not
    installed. As root it drops to the postgres user (it refuses to run as root)."""
    exe = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not Path(exe).exists():
        return None
    workdir = Path(tempfile.mkdtemp(prefix="bench-pgbouncer-"))
    users = workdir / "users.txt"
    users.write_text('"postgres" ""\n')
    ini = workdir / "pgbouncer.ini"
    ini.write_text(
        f"""[databases]
{DB} = host=127.0.0.1 port=5432 dbname={DB}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {PGBOUNCER_PORT}
unix_socket_dir =
auth_type = trust
auth_file = {users}
pool_mode = transaction
default_pool_size = 6
max_client_conn = 200
ignore_startup_parameters = extra_float_digits,options
logfile = {workdir}/pgbouncer.log
pidfile = {workdir}/pgbouncer.pid
"""
    )
    for path in (workdir, users, ini):
        path.chmod(0o777 if path == workdir else 0o644)
    command = [exe, str(ini)]
    if os.geteuid() == 0:
        command[1:1] = ["-u", "postgres"]
    proc = start(command)
    for _ in range(50):
        if proc.poll() is not None:
            raise SystemExit(f"pgbouncer exited: {(workdir / 'pgbouncer.log').read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", PGBOUNCER_PORT), 0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    raise SystemExit("pgbouncer did not start")


def through_pgbouncer_env() -> dict:
    """The server's environment changes for running behind PgBouncer."""
    return {
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{PGBOUNCER_PORT}/{DB}",
        "PGBOUNCER_TRANSACTION_MODE": "true",
        "CONN_MAX_AGE": "0",
    }


def check_answers() -> list[str]:
    """A request of every kind through PgBouncer; what went wrong, if anything."""
    problems = []
    with httpx.Client(base_url=BASE, headers={"X-API-Key": "demo-shop-key"}) as client:
        for path in ("/api/v1/finance/balance", "/api/v1/order/?size=50", "/api/v1/ping"):
            status = client.get(path).status_code
            if status != 200:
                problems.append(f"GET {path}: {status}")
    return problems
