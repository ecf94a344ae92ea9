"""Settings for the test suite: production settings with test-only secrets and plain
HTTP (the test client speaks HTTP), everything else from the environment as usual."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("SESSION_COOKIE_SECURE", "false")
os.environ.setdefault("CSRF_COOKIE_SECURE", "false")
os.environ.setdefault("WEBHOOK_ALLOW_PRIVATE_NETWORKS", "true")
# Admin tests sign in with force_login; the two-factor tests turn ADMIN_2FA on themselves.
os.environ.setdefault("ADMIN_2FA", "false")
os.environ.setdefault("TRADER_2FA", "false")
# Tests send far more than a merchant would from one key; the rate-limit test lowers it.
os.environ.setdefault("API_RATE_LIMIT", "1000000/min")
# Metrics in the test process's own registry; the multiprocess test sets its own dir.
os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
os.environ.setdefault("AUTH_FAILURE_RATE_LIMIT", "1000000/min")
# Parallel workers (pytest-xdist) share the cache's and the broker's server, each with
# its own database: each keeps its own keys (a generation another worker moves would
# void its kept reads) and its own queues (a Celery worker one test starts must not
# take another worker's tasks, which name rows of another database), and its own files
# (the embedded broker's folders, the file cache). The servers and workers a test
# starts inherit all three.
_var = os.environ.setdefault(
    "VAR_DIR", os.path.join(os.path.dirname(os.path.dirname(__file__)), "var", "test")
)
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker:
    os.environ.setdefault("CACHE_KEY_PREFIX", f"test-{_worker}")
    os.environ.setdefault("CELERY_BROKER_KEY_PREFIX", f"test-{_worker}:")
    # A worker inherits the VAR_DIR its controller set; what it starts inherits its own.
    if os.path.basename(_var) != _worker:
        os.environ["VAR_DIR"] = os.path.join(_var, _worker)

from .settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
