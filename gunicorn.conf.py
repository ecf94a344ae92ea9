"""gunicorn for the web process: cores + 1 processes × 2 threads (3 × 2 on 2 cores).
`make bench` compares layouts (docs/benchmarks.md): once a request's Python got cheap,
more threads per process mostly queued on its GIL, and fewer processes left a core idle
while one waited on a COMMIT's WAL flush; 3 × 1 and 3 × 2 made the most order creations
there, and the second thread keeps a process answering while its other request waits
on PostgreSQL, a DNS look-up or a slow upload. Override with WEB_CONCURRENCY and
GUNICORN_THREADS. Each thread may hold one database connection (CONN_MAX_AGE), so
processes × threads × machines must stay under PostgreSQL's max_connections (or put
PgBouncer in front)."""

import json
import os
from pathlib import Path

import environ
import gunicorn.util
from gunicorn.glogging import Logger

# The same .env the Django settings read (variables already set win), for VAR_DIR.
_base = Path(__file__).resolve().parent
_env_file = Path(os.environ.get("ENV_FILE", _base / ".env"))
if _env_file.exists():
    environ.Env.read_env(_env_file)

# The cores this process may use (a container's cpuset), not the host's.
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

# Loopback unless GUNICORN_BIND says otherwise: the proxy in front (nginx, on this
# machine) is the way in, and a gunicorn on every interface could be reached around it
# by accident. A container whose proxy is another container sets GUNICORN_BIND.
bind = os.environ.get("GUNICORN_BIND", f"127.0.0.1:{os.environ.get('PORT', '8000')}")
workers = int(os.environ.get("WEB_CONCURRENCY", (cores or 1) + 1))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", 2))
# No request should take this long; a stuck one is killed and its process replaced.
timeout = 30
graceful_timeout = 20
# Behind a load balancer that keeps connections open: longer than its idle timeout
# would be wrong, shorter only costs a reconnect.
keepalive = 5
# Recycle processes now and then (jitter: not all at once) so slow leaks stay bounded.
max_requests = 20000
max_requests_jitter = 2000
# Heartbeat files in memory: a slow or overlay disk in a container must not make
# healthy workers look dead.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# The load balancer's address(es), whose X-Forwarded-* headers are believed.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
errorlog = "-"


class _Logger(Logger):
    """gunicorn's logger, writing its own access line only where GUNICORN_ACCESS_LOG
    asks for one. Each request's line is Django's (`paymentsvc.access`: the request id,
    the route, the status and the time, masked as every line is); with a logging
    configuration set, gunicorn would add a second one on stdout, built from every
    header of the request and the response and masked by nothing."""

    def access(self, resp, req, environ, request_time):
        if self.cfg.accesslog:
            super().access(resp, req, environ, request_time)


logger_class = _Logger
# gunicorn answers an over-long request line with its own error before Django
# runs; its largest allowed line keeps that to lines no API call comes near.
limit_request_line = 8190


def _json_error(sock, status_int, reason, mesg):
    """gunicorn's own answer to a request it cannot pass on (a request line or header
    over its limits, a malformed one), in the service's error shape instead of an HTML
    page: no HTML error page under /api/ (decisions.md), and the path is not known."""
    code = {414: "uri_too_long", 431: "headers_too_large"}.get(
        status_int, "internal_error" if status_int >= 500 else "malformed_request"
    )  # the proxy's codes for the same refusals (docs/deploy.md)
    message = f"{reason}: {mesg}" if mesg else reason
    body = json.dumps({"success": False, "message": message, "code": code}).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    gunicorn.util.write_nonblock(sock, head.encode("latin-1") + body)


# The one place gunicorn writes such an answer (its workers call it by this name).
gunicorn.util.write_error = _json_error

# Log lines as JSON, like the service's own (settings.LOGGING).
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": ["levelname", "name", "message"],
            "timestamp": "time",
            "rename_fields": {"levelname": "level", "name": "logger"},
        }
    },
    "handlers": {
        "error_console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "stream": "ext://sys.stderr",
        },
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "stream": "ext://sys.stdout",
        },
    },
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["error_console"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
    },
}


def child_exit(server, worker):
    """Metrics in multiprocess mode (core.metrics): a worker that is gone stops
    counting in live gauges; its counters keep adding up, as counters should."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# The control socket (gunicornc) lives with the rest of the local state, not in a
# path shared by every gunicorn of the user ($HOME/.gunicorn/).
control_socket = str(Path(os.environ.get("VAR_DIR", _base / "var")) / "gunicorn.ctl")
