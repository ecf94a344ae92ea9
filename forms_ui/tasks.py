import logging

from celery import shared_task

from .services import sessions_sync_due

logger = logging.getLogger(__name__)


@shared_task
def sync_sessions():
    touched = sessions_sync_due()
    if touched:
        logger.info("Synchronised %d payment-form sessions", touched)
    return touched
