from celery import shared_task
from django.conf import settings

from .idempotency import purge_expired


@shared_task
def purge_idempotency_keys():
    return purge_expired(settings.IDEMPOTENCY_TTL_SECONDS)
