import logging
import os

from celery import Celery
from kombu import Queue

from core import broker, logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paymentsvc.settings")
broker.install()

app = Celery("paymentsvc")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
logs.connect_celery(app)

# Beat only enqueues sweeps; the work and its state live in the database, so exactly
# one beat runs, and a missed or doubled tick costs nothing. A sweep that waited in
# the queue longer than a few of its periods (workers were down) is dropped: the next
# one does the same work.
BEAT_SCHEDULE = {
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
        "task": "core.tasks.purge_idempotency_keys",
        "schedule": 3600.0,
        "options": {"expires": 1800},
    },
}


app.conf.beat_schedule = BEAT_SCHEDULE

# Periodic work has a queue of its own, so webhook deliveries (which may wait on a
# merchant's dead endpoint for their whole timeout) can never hold it back: Procfile
# runs a worker for each queue; a worker started without -Q consumes both. The
# sandbox's delayed actions are periodic work too: the sandbox promises their timing.
PERIODIC_QUEUE = "periodic"
DELIVERY_QUEUE = "celery"
app.conf.task_queues = (Queue(DELIVERY_QUEUE), Queue(PERIODIC_QUEUE))
app.conf.task_default_queue = DELIVERY_QUEUE
app.conf.task_routes = {
    name: {"queue": PERIODIC_QUEUE}
    for name in [entry["task"] for entry in BEAT_SCHEDULE.values()] + ["orders.tasks.sandbox_act"]
}

# The sweeps above run every few seconds; a line each time they are sent, received and
# finished buries everything else (make run's banner first). They log themselves when
# they acted, so celery's own INFO lines about them are dropped; other tasks (webhook
# deliveries) keep theirs, and warnings and errors always pass.
# (From the dict, not app.conf: reading app.conf would load Django's settings at import.)
PERIODIC_TASKS = frozenset(entry["task"] for entry in BEAT_SCHEDULE.values())


class QuietPeriodicTasks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        if record.msg == "Scheduler: Sending due task %s (%s)":  # celery.beat
            return not (isinstance(record.args, tuple) and record.args[-1] in PERIODIC_TASKS)
        # celery.worker.strategy ("received") and celery.app.trace ("succeeded")
        args = record.args
        return not (isinstance(args, dict) and args.get("name") in PERIODIC_TASKS)


for _name in ("celery.beat", "celery.worker.strategy", "celery.app.trace"):
    logging.getLogger(_name).addFilter(QuietPeriodicTasks())
