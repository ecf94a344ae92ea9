"""The webhook tasks and the one place that publishes them to the broker.

Publishing lives beside the tasks it publishes so that services (event_record) and
the sweep both reach it without the modules importing each other in a circle.
"""

import logging
import time

from celery import shared_task
from django.conf import settings

from .delivery import delivery_attempt
from .selectors import deliveries_due

logger = logging.getLogger(__name__)

# Both limits end well inside the delivery's claim (timeout + 30 s), so a stuck task is
# stopped before another worker may take the same delivery over.
_ATTEMPT_LIMIT = settings.WEBHOOK_TIMEOUT_SECONDS + 10


# Idempotent: the claim lets a duplicate or redelivered message do nothing, so the
# message is acknowledged only after the attempt (acks_late) and handed out again if
# the worker dies mid-attempt.
@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=_ATTEMPT_LIMIT,
    time_limit=_ATTEMPT_LIMIT + 10,
)
def deliver_webhook(delivery_id: int):
    return delivery_attempt(delivery_id=delivery_id)


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
    """The sweep: queue every delivery that is due and not claimed by a live worker.
    It is also what sends retries: a failed attempt only moves next_attempt_at."""
    due = deliveries_due(limit=limit)
    enqueue_deliveries(due)
    return len(due)
