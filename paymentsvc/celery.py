import os

from celery import Celery

from . import broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paymentsvc.settings")
broker.install()

app = Celery("paymentsvc")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Beat only enqueues sweeps; the work and its state live in the database, so exactly
# one beat runs, and a missed or doubled tick costs nothing. A sweep that waited in
# the queue longer than a few of its periods (workers were down) is dropped: the next
# one does the same work.
app.conf.beat_schedule = {
    "expire-orders": {
        "task": "orders.tasks.expire_orders",
        "schedule": 2.0,
        "options": {"expires": 10},
    },
    # Magic-amount sandbox orders whose queued task was lost (dead worker, broker
    # down): acted on well within the 10 s the sandbox promises.
    "sandbox-magic-amounts": {
        "task": "orders.tasks.sandbox_sweep",
        "schedule": 2.0,
        "options": {"expires": 10},
    },
    "sync-form-sessions": {
        "task": "forms_ui.tasks.sync_sessions",
        "schedule": 2.0,
        "options": {"expires": 10},
    },
    "sweep-webhook-deliveries": {
        "task": "webhooks.tasks.sweep_deliveries",
        "schedule": 5.0,
        "options": {"expires": 20},
    },
    "purge-idempotency-keys": {
        "task": "paymentsvc.tasks.purge_idempotency_keys",
        "schedule": 3600.0,
        "options": {"expires": 1800},
    },
}
