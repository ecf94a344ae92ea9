import logging

from celery import shared_task
from django.conf import settings

from .idempotency import purge_expired

logger = logging.getLogger(__name__)


@shared_task
def purge_idempotency_keys():
    purged = purge_expired(settings.IDEMPOTENCY_TTL_SECONDS)
    if purged:
        logger.info("Purged %d expired idempotency records", purged)
    return purged
