from celery import shared_task

from .services import order_expire_due, sandbox_act_due
from .services import sandbox_act as sandbox_act_order


@shared_task
def expire_orders():
    return order_expire_due()


# Queued on commit by the sandbox (by name: orders.tasks.sandbox_act) with a countdown;
# acting twice is harmless, so a redelivered message costs nothing.
@shared_task
def sandbox_act(order_id: str):
    return bool(sandbox_act_order(order_id=order_id))


@shared_task
def sandbox_sweep():
    return sandbox_act_due()
