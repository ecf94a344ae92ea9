"""The webhook tasks and the one place that publishes them to the broker.

Publishing lives beside the tasks it publishes so that services (event_record) and
the sweep both reach it without the modules importing each other in a circle.
"""

import logging
import time

from celery import shared_task
from django.conf import settings

from .delivery import SENDING_WINDOW_SECONDS, deliveries_send
from .selectors import deliveries_due

logger = logging.getLogger(__name__)

# A run claims for SENDING_WINDOW_SECONDS; what it claimed then may wait one attempt's
# time for a place, then take one attempt's time; for two attempts' time more it claims
# only what starts at once (delivery.deliveries_send). Every claim ends well inside its
# own time (twice the timeout + 30 s from the claim), so a stuck task is stopped before
# another worker may take its deliveries over.
_SENDING_LIMIT = SENDING_WINDOW_SECONDS + 3 * settings.WEBHOOK_TIMEOUT_SECONDS + 5


# The message names one delivery, but the run sends every due one, up to
# WEBHOOK_DELIVERY_CONCURRENCY at a time: a message whose delivery another run already
# sent still helps with the rest. Idempotent: the claims let a duplicate or
# redelivered message do nothing twice, so the message is acknowledged only after the
# run (acks_late) and handed out again if the worker dies mid-run.
@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=_SENDING_LIMIT,
    time_limit=_SENDING_LIMIT + 10,
)
def deliver_webhook(delivery_id: int):
    return deliveries_send(first_id=delivery_id)


@shared_task(soft_time_limit=50, time_limit=60)
def sweep_deliveries():
    return deliveries_requeue_due()


# After a failed publish, requests stop trying the broker for a while: a broker that
# is down costs one slow connection attempt per process per pause, not one per order.
BROKER_PAUSE_SECONDS = 15
_broker_paused_until = 0.0


def enqueue_deliveries(delivery_ids: list[int]) -> None:
    """Hand deliveries to the broker. If it is down, nothing is lost: the rows are
    already committed and the periodic sweep queues them again."""
    global _broker_paused_until
    if time.monotonic() < _broker_paused_until:
        return
    for delivery_id in delivery_ids:
        try:
            deliver_webhook.apply_async(args=[delivery_id], retry=False)
        except Exception as exc:
            _broker_paused_until = time.monotonic() + BROKER_PAUSE_SECONDS
            logger.warning(
                "Broker unavailable (%s); %d delivery(ies) left to the sweep",
                exc,
                len(delivery_ids),
            )
            return


def deliveries_requeue_due(*, limit: int = 500) -> int:
    """The sweep: queue what is due and not claimed by a live worker. It is also what
    sends retries: a failed attempt only moves next_attempt_at. A run sends every due
    delivery, so one message per WEBHOOK_DELIVERY_CONCURRENCY of them wakes enough
    worker processes."""
    due = deliveries_due(limit=limit)
    enqueue_deliveries(due[:: max(1, settings.WEBHOOK_DELIVERY_CONCURRENCY)])
    return len(due)
