import logging

from celery import shared_task

from .services import order_expire_due

logger = logging.getLogger(__name__)


@shared_task
def expire_orders():
    expired = order_expire_due()
    if expired:
        logger.info("Expired %d overdue orders", expired)
    return expired
