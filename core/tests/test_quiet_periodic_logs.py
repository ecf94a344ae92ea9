"""The sweeps that beat sends every few seconds log only when they did something;
celery's own lines about them are dropped, other tasks' are kept."""

import logging

import pytest
from celery.app import trace

from core.tasks import purge_idempotency_keys
from orders.tasks import expire_orders
from paymentsvc.celery import PERIODIC_TASKS


def emit(logger: str, level: int, msg: str, args) -> None:
    logging.getLogger(logger).log(level, msg, args)


@pytest.mark.parametrize("task", sorted(PERIODIC_TASKS))
def test_celery_info_lines_about_periodic_tasks_are_dropped(caplog, task):
    caplog.set_level(logging.INFO)
    logging.getLogger("celery.beat").info("Scheduler: Sending due task %s (%s)", "some-entry", task)
    emit("celery.worker.strategy", logging.INFO, trace.LOG_RECEIVED, {"name": task, "id": "1"})
    context = {"name": task, "id": "1", "runtime": 0.01, "return_value": 0}
    emit("celery.app.trace", logging.INFO, trace.LOG_SUCCESS, context)
    assert caplog.records == []


def test_other_tasks_and_failures_are_still_logged(caplog):
    caplog.set_level(logging.INFO)
    context = {"name": "webhooks.tasks.deliver_webhook", "id": "1", "runtime": 0.1}
    emit("celery.worker.strategy", logging.INFO, trace.LOG_RECEIVED, context)
    failed = {"name": "orders.tasks.expire_orders", "id": "2", "exc": "boom", "description": ""}
    emit("celery.app.trace", logging.ERROR, trace.LOG_FAILURE, failed)
    assert [r.levelname for r in caplog.records] == ["INFO", "ERROR"]


def test_a_sweep_with_nothing_to_do_logs_nothing(db, caplog):
    caplog.set_level(logging.INFO)
    assert expire_orders() == 0
    assert purge_idempotency_keys() == 0
    assert caplog.records == []
