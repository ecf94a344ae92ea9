from celery import shared_task
from django.conf import settings

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
    from .delivery import delivery_attempt

    return delivery_attempt(delivery_id=delivery_id)


@shared_task(soft_time_limit=50, time_limit=60)
def sweep_deliveries():
    from .delivery import deliveries_requeue_due

    return deliveries_requeue_due()
