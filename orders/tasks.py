import logging

from celery import shared_task

from .services import order_expire_due, sandbox_act_due
from .services import sandbox_act as sandbox_act_order

logger = logging.getLogger(__name__)


@shared_task
def expire_orders():
    expired = order_expire_due()
    if expired:
        logger.info("Expired %d overdue orders", expired)
    return expired


# Queued on commit by the sandbox (by name: orders.tasks.sandbox_act) with a countdown;
# acting twice is harmless, so a redelivered message costs nothing.
@shared_task
def sandbox_act(order_id: str):
    return bool(sandbox_act_order(order_id=order_id))


@shared_task
def sandbox_sweep():
    return sandbox_act_due()
