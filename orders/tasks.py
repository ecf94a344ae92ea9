from celery import shared_task

from .services import order_expire_due


@shared_task
def expire_orders():
    return order_expire_due()
