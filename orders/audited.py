"""A person's confirm or cancel of an order (a trader's in the API, an operator's in
the admin) with its audit entry, in one transaction."""

from django.db import transaction

from audit.services import audit_record
from core.errors import ServiceError

from .models import Order, OrderStatus


def order_act_audited(
    *,
    service,
    order_id,
    actor: str,
    actor_kind: str,
    actor_id,
    action: str,
    request,
    savepoint: bool = True,
) -> Order:
    """`service(order_id=..., actor=..., on_closed=...)` and its entry. A refusal writes
    no entry and is raised once the transaction is over, so what the service kept on
    refusing (an overdue order expires instead) stays, as without the log."""
    refused = None
    written = []

    def entry(order: Order) -> None:
        audit_record(
            actor_kind=actor_kind,
            actor_id=actor_id,
            action=action,
            obj=order,
            changes={"status": [OrderStatus.PENDING, order.status]},
            request=request,
            ride=True,  # with the close's event, in its statement (lifecycle._settle)
        )
        written.append(order)

    # `savepoint` off: a caller whose transaction fails whole on any error (a device's
    # notification) spares the round trips; a refusal is still caught in here, after
    # the service's own block has taken back what it wrote (its entry included).
    with transaction.atomic(savepoint=savepoint):
        try:
            # The close writes the entry once the status is (`on_closed`), before the
            # rows every close shares, so that they are not held while it is written.
            order = service(order_id=order_id, actor=actor, on_closed=entry)
        except ServiceError as error:
            refused = error
        else:
            if not written:
                entry(order)
    if refused is not None:
        raise refused
    return order
