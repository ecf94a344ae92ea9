"""Settings, all from the environment (django-environ).

With nothing set the service runs on SQLite with a filesystem broker, so `make run`
works on a bare machine. `DATABASE_URL` (PostgreSQL) and `CELERY_BROKER_URL` (Redis)
switch to the production stack without any code change.
"""

from pathlib import Path
from urllib.parse import urlsplit

import environ

from core.rates import parse_rate

from .logging_config import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent

# `.env` first: every setting below (VAR_DIR included) may come from it. Variables
# already in the environment win over the file.
env = environ.Env()
ENV_FILE = Path(env.str("ENV_FILE", default=str(BASE_DIR / ".env")))
if ENV_FILE.exists():
    env.read_env(ENV_FILE)

# Databases, the embedded broker, the file cache and uploads live here. Nothing is
# created at import: PaymentsvcConfig.ready() makes the directories (settings_dirs).
VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))

DEBUG = env.bool("DEBUG", default=False)

_INSECURE_DEV_KEY = "insecure-dev-key-only-used-when-DEBUG-is-on-0123456789abcdef"
SECRET_KEY = env.str("SECRET_KEY", default=_INSECURE_DEV_KEY if DEBUG else "")
if not SECRET_KEY:
    raise environ.ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")

PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://localhost:8000").rstrip("/")
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS",
    default=["localhost", "127.0.0.1", "[::1]", urlsplit(PUBLIC_BASE_URL).hostname or "localhost"],
)
CSRF_TRUSTED_ORIGINS = env.list(
    "CSRF_TRUSTED_ORIGINS",
    default=[f"{urlsplit(PUBLIC_BASE_URL).scheme}://{urlsplit(PUBLIC_BASE_URL).netloc}"],
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "audit",
    "finance",
    "webhooks",
    "orders",
    "forms_ui",
    "disputes",
    "traders",
    "settlements",
    "operators",
    "demo",
]

MIDDLEWARE = [
    "core.observability.RequestObservabilityMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.middleware.ApiErrorMiddleware",
    "core.middleware.SecurityHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.middleware.PageLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "audit.context.AuditRequestMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "core.admin_site.OperatorAdminMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "paymentsvc.urls"
WSGI_APPLICATION = "paymentsvc.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DB_PREPARED_STATEMENTS = False  # PostgreSQL's alone (core/prepared.py)
# Kept per thread, on SQLite too (opening one was a fifth of a demo's balance read).
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers queue on the database lock instead of failing with "database is locked":
    # IMMEDIATE takes the write lock at BEGIN, WAL lets readers go on meanwhile.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
else:
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Behind PgBouncer in transaction mode (docs/scale.md) a session is not ours from
    # one transaction to the next: no server-side cursors (they outlive a statement),
    # nor prepared statements (core/prepared.py). Nothing else keeps session state
    # (advisory locks are transaction-scoped; parameters are bound on the client).
    _PGBOUNCER = env.bool("PGBOUNCER_TRANSACTION_MODE", default=False)
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = _PGBOUNCER
    DB_PREPARED_STATEMENTS = not _PGBOUNCER
    if DB_PREPARED_STATEMENTS:
        # psycopg prepares nothing on its own (Django's cursors bind on the client);
        # core.prepared's cursor asks for each of its statements.
        DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 2**31 - 1
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (rate limits) ----------------------------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
# Rate limits and sign-in throttling count across every web process, so the cache is
# shared: Redis when there is one, else files under VAR_DIR (one machine).
if env.str("CACHE_URL", default=""):
    CACHES = {"default": env.cache("CACHE_URL")}
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CACHES = {"default": env.cache_url_config(CELERY_BROKER_URL)}
else:
    CACHES = {
        "default": {
            "BACKEND": "core.cache.FileCache",
            "LOCATION": str(VAR_DIR / "cache"),
            # Room for every live counter: a random cull would take sign-in counts too.
            "OPTIONS": {"MAX_ENTRIES": 3000},
        }
    }
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # The same Redis, one client per pool and a request's counters in one trip.
    CACHES["default"]["BACKEND"] = "core.cache.RedisCache"
# Processes that share a cache's server but not its keys (the test suite's parallel
# workers, each with its own database) start every key with their own prefix.
CACHES["default"]["KEY_PREFIX"] = env.str("CACHE_KEY_PREFIX", default="")

# --- Auth, i18n -----------------------------------------------------------------------
_VALIDATION = "django.contrib.auth.password_validation"
# Django's ModelBackend, with each person's permissions kept between requests
# (core.permissions) instead of read twice on every back-office request.
AUTHENTICATION_BACKENDS = ["core.permissions.KeptPermissionsBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"{_VALIDATION}.UserAttributeSimilarityValidator"},
    {"NAME": f"{_VALIDATION}.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": f"{_VALIDATION}.CommonPasswordValidator"},
    {"NAME": f"{_VALIDATION}.NumericPasswordValidator"},
]
# The API speaks English whatever the client asks; the admin follows the operator's
# browser (else English); the payer's form picks Russian or English (Russian first).
LANGUAGE_CODE = "en"
LANGUAGES = [("ru", "Русский"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
# Dates and times in the admin: one format, with the zone named (see admin_site.py).
FORMAT_MODULE_PATH = ["core.locale_formats"]
USE_I18N = True
USE_TZ = True

# --- Static and uploaded files ----------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    # Dispute evidence: private. Local files live outside any served URL; with
    # S3 settings they go to a private bucket.
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(VAR_DIR / "private-media"), "base_url": None},
    },
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
if env.str("AWS_STORAGE_BUCKET_NAME", default=""):
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env.str("AWS_STORAGE_BUCKET_NAME"),
            "endpoint_url": env.str("AWS_S3_ENDPOINT_URL", default=None),
            "access_key": env.str("AWS_ACCESS_KEY_ID", default=None),
            "secret_key": env.str("AWS_SECRET_ACCESS_KEY", default=None),
            "region_name": env.str("AWS_S3_REGION_NAME", default=None),
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 20

# --- DRF and OpenAPI ---------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_PARSER_CLASSES": ["core.parsers.DecimalJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["core.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "core.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.schema.ServiceAutoSchema",
    "DATETIME_FORMAT": "%Y-%m-%dT%H:%M:%S.%fZ",
    "COERCE_DECIMAL_TO_STRING": True,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Payment Orders Service API",
    "DESCRIPTION": "Payment orders (Buy and Sell), the hosted payment form, disputes and "
    "finance queries. Every merchant request carries the `X-API-Key` header of a terminal. "
    "A NUL character anywhere in a request (a query parameter, a form field, a JSON key or "
    "value, also of fields not listed here) is 400 `malformed_request`. Requests with a "
    "missing or invalid key count against `AUTH_FAILURE_RATE_LIMIT` per client address "
    "(default 60/min); past it, 429 `auth_rate_limited` with `Retry-After`.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI served from our own static files: no third-party assets.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The form takes only Buy; orders take Buy and Sell.
    "ENUM_NAME_OVERRIDES": {
        "OrderSideEnum": "finance.models.Side",
        "OrderStatusEnum": "orders.models.OrderStatus",
        "FormOrderSideEnum": [("Buy", "Buy")],
        "OrderCreateInOrderSideEnum": [("Sell", "Sell")],  # a Sell's rules, create and availability
        "EventTypeEnum": "webhooks.models.EventType",
        "DeliveryStatusEnum": "webhooks.models.DeliveryState",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema.forbid_nul_hook",
        "core.schema.response_headers_hook",
    ],
}

# --- Business settings (docs/decisions.md) --------------------------------------------------
ORDER_TTL_BUY_SECONDS = env.int("ORDER_TTL_BUY_SECONDS", default=15 * 60)
ORDER_TTL_SELL_SECONDS = env.int("ORDER_TTL_SELL_SECONDS", default=60 * 60)
# The order list counts `total` up to this many orders; past it `total` is this cap and
# `total_is_estimate` is true (docs/orders.md), so a busy terminal's list stays cheap.
ORDER_LIST_COUNT_CAP = env.int("ORDER_LIST_COUNT_CAP", default=1_000)
# The same for the events and the webhook deliveries lists (docs/webhooks.md).
EVENT_LIST_COUNT_CAP = env.int("EVENT_LIST_COUNT_CAP", default=1_000)
FORM_SEARCH_WINDOW_SECONDS = env.int("FORM_SEARCH_WINDOW_SECONDS", default=60)
FORM_SEARCH_RETRY_SECONDS = env.int("FORM_SEARCH_RETRY_SECONDS", default=3)
FORM_SESSION_TTL_SECONDS = env.int("FORM_SESSION_TTL_SECONDS", default=30 * 60)
ANTIFRAUD_MAX_PENDING_PER_USER = env.int("ANTIFRAUD_MAX_PENDING_PER_USER", default=3)
API_RATE_LIMIT = env.str("API_RATE_LIMIT", default="1200/min")
# Failed X-API-Key authentications allowed per client address (docs/decisions.md).
AUTH_FAILURE_RATE_LIMIT = env.str("AUTH_FAILURE_RATE_LIMIT", default="60/min")
# The proxies whose X-Forwarded-For is believed (the same variable gunicorn reads).
FORWARDED_ALLOW_IPS = [
    ip.strip()
    for ip in env.str("FORWARDED_ALLOW_IPS", default="127.0.0.1").split(",")
    if ip.strip()
]
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
# A trader's phone silent for longer than this is shown offline (traders.md §20).
DEVICE_OFFLINE_AFTER_SECONDS = env.int("DEVICE_OFFLINE_AFTER_SECONDS", default=300)
# A notification's received_at may run ahead of our clock by this much (the phone's
# clock is not ours); further ahead it is refused.
DEVICE_CLOCK_SKEW_SECONDS = env.int("DEVICE_CLOCK_SKEW_SECONDS", default=600)
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=DEBUG)
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=10.0)
# Attempts one worker process keeps in flight (docs/webhooks.md, "Delivery concurrency").
WEBHOOK_DELIVERY_CONCURRENCY = env.int("WEBHOOK_DELIVERY_CONCURRENCY", default=16)
# Seconds to wait before each retry after a failed attempt (docs/webhooks.md#delivery-and-retries).
WEBHOOK_RETRY_SCHEDULE = env.list(
    "WEBHOOK_RETRY_SCHEDULE",
    cast=int,
    default=[5, 300, 1800, 7200, 18000, 36000, 36000],
)

# --- Celery ---------------------------------------------------------------------------
# Every task is idempotent (sweeps over the database; a webhook attempt starts with a
# conditional claim), so a message is acknowledged only after its task has run
# (acks_late) and handed out again when the worker running it dies: a duplicate is
# harmless, a lost message is not.
#
# A request that publishes (on commit) gives up on a dead broker at once instead of
# retrying for seconds: the outbox rows are committed and the sweep queues them later.
# Workers and beat reconnect with their own retry loops.
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 0}
if CELERY_BROKER_URL.startswith("filesystem://"):
    # The embedded default: one machine, no server; same tasks, same beat schedule.
    _queue_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "data_folder_in": str(_queue_dir / "queue"),
        "data_folder_out": str(_queue_dir / "queue"),
        "processed_folder": str(_queue_dir / "processed"),
        "control_folder": str(_queue_dir / "control"),
        "store_processed": False,
        # The folder is polled; the default second between looks caps a worker at a
        # few tasks a second. A directory listing every 0.1 s costs next to nothing.
        "polling_interval": 0.1,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
        "health_check_interval": 25,
        # An unacknowledged message (its worker died) is handed out again after this long:
        # longer than any task may run (none uses countdown/eta); the sweep comes first.
        "visibility_timeout": 3600,
        # Before every key: queues apart for processes sharing one database (parallel tests).
        "global_keyprefix": env.str("CELERY_BROKER_KEY_PREFIX", default=""),
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One message at a time per process: a slow webhook does not hold a queue of others.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_WORKER_MAX_TASKS_PER_CHILD = env.int("CELERY_WORKER_MAX_TASKS_PER_CHILD", default=2000)
CELERY_TASK_TIME_LIMIT = 120
CELERY_TASK_SOFT_TIME_LIMIT = 100
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- Security (secure by default when DEBUG is off) --------------------------------------
CSRF_FAILURE_VIEW = "forms_ui.views.csrf_failure"
# Admin messages carry keys and secrets that are shown once: keep them on the server
# (the session) rather than in a signed but readable cookie.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
# Django's database sessions, a changed session saved in one UPDATE (core/sessions.py).
SESSION_ENGINE = "core.sessions"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
# Failed admin sign-ins per (user name, client address) pair before that pair is locked
# out for the rest of the window; an address alone gets four times as many, and the
# user name alone is never locked. ADMIN_LOGIN_MAX_FAILURES and
# ADMIN_LOGIN_LOCKOUT_SECONDS still set the two halves.
ADMIN_LOGIN_RATE_LIMIT = env.str(
    "ADMIN_LOGIN_RATE_LIMIT",
    default=f"{env.int('ADMIN_LOGIN_MAX_FAILURES', default=5)}"
    f"/{env.int('ADMIN_LOGIN_LOCKOUT_SECONDS', default=900)}s",
)
# Staff sign in with a TOTP code as well as a password; `make run`'s demo mode turns it off.
ADMIN_2FA = env.bool("ADMIN_2FA", default=not DEBUG)
# Traders sign in to their cabinet with a TOTP code too (/trader/login/, /trader/2fa/).
TRADER_2FA = env.bool("TRADER_2FA", default=not DEBUG)
OTP_TOTP_ISSUER = env.str("OTP_TOTP_ISSUER", default="paymentsvc")
# The admin shows times in the operators' zone, named beside them; the API stays UTC.
OPERATOR_TIME_ZONE = env.str("OPERATOR_TIME_ZONE", default="Europe/Moscow")
# The back office's language unless an operator picks another with the header's switch.
OPERATOR_LANGUAGE = env.str("OPERATOR_LANGUAGE", default="ru")

# Checked at start-up, through the one parser the throttles use: a typo here must not
# turn every request into an error.
for _name in ("API_RATE_LIMIT", "AUTH_FAILURE_RATE_LIMIT", "ADMIN_LOGIN_RATE_LIMIT"):
    try:
        parse_rate(globals()[_name], name=_name)
    except ValueError as exc:
        raise environ.ImproperlyConfigured(str(exc)) from None

# --- Observability (docs/operations.md) --------------------------------------------------
# With a token, /metrics wants `Authorization: Bearer <token>` from anywhere; without
# one it answers only clients on this machine.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# Off: requests, orders, transitions and webhook attempts are not counted (/metrics
# still answers, its gauges computed at scrape).
METRICS_ENABLED = env.bool("METRICS_ENABLED", default=True)

# One JSON object per line, from web, worker and beat alike (Celery keeps its hands
# off logging: core.logs). Every line carries the request id and what is known
# of the request; keys, secrets and account numbers are masked by the formatter.
LOGGING = logging_config(env.str("LOG_LEVEL", default="INFO"))
