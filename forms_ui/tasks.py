from celery import shared_task

from .services import sessions_sync_due


@shared_task
def sync_sessions():
    return sessions_sync_due()
