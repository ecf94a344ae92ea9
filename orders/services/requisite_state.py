"""A requisite's switch: on and off by its trader or an operator, and off by itself
after `auto_disable_after` orders in a row ended Expired by the clock.

`disabled_reason` says who switched it off (null while on). A trader cannot switch
on what an operator switched off; switching on starts the count of expiries again.
"""

from django.db import transaction
from django.db.models import F

from audit.models import ActorKind
from audit.services import audit_record, request_actor
from core.error_codes import ErrorCode
from core.errors import Conflict, NotFound

from ..models import OrderStatus, Requisite, RequisiteDisabledReason

# The actor of an expiry by the clock (the sweep, or a confirm that came too late),
# and of a sandbox simulation (magic amounts, simulate), which never counts.
CLOCK_EXPIRY_ACTOR = "expiry"
SIMULATION_ACTOR = "sandbox"


class DisabledByOperator(Conflict):
    code = ErrorCode.DISABLED_BY_OPERATOR


def _locked(requisite_id, trader_id=None) -> Requisite:
    qs = Requisite.objects.select_for_update().select_related("method").filter(pk=requisite_id)
    if trader_id is not None:
        qs = qs.filter(trader_id=trader_id)
    requisite = qs.first()
    if requisite is None:
        raise NotFound(code=ErrorCode.REQUISITE_NOT_FOUND)
    return requisite


def switched(requisite: Requisite, *, on: bool, by_operator: bool) -> None:
    """The switch's rule on the fields of `requisite` (not saved): on clears the reason
    and starts the count of expiries again; off says who switched it off (a trader's
    switch-off of what is already off changes nothing)."""
    if on:
        requisite.is_active, requisite.disabled_reason = True, None
        requisite.expired_in_a_row = 0
    elif requisite.is_active or by_operator:
        requisite.is_active = False
        requisite.disabled_reason = (
            RequisiteDisabledReason.OPERATOR if by_operator else RequisiteDisabledReason.TRADER
        )


def requisite_switch(*, requisite_id, on: bool, by_operator: bool, trader_id=None) -> Requisite:
    """Switch a requisite on or off. With `trader_id`, only that trader's requisite
    (404 otherwise); a trader's switch-on of an operator's switch-off is a 409."""
    with transaction.atomic():
        requisite = _locked(requisite_id, trader_id)
        if on and requisite.disabled_reason == RequisiteDisabledReason.OPERATOR and not by_operator:
            raise DisabledByOperator()
        switched(requisite, on=on, by_operator=by_operator)
        requisite.save(update_fields=["is_active", "disabled_reason", "expired_in_a_row"])
        kind, actor_id = request_actor()
        if trader_id is not None:
            kind, actor_id = ActorKind.TRADER, str(trader_id)
        audit_record(
            actor_kind=kind,
            actor_id=actor_id,
            action="requisite.enable" if on else "requisite.disable",
            obj=requisite,
            changes={
                "is_active": requisite.is_active,
                "disabled_reason": requisite.disabled_reason,
            },
        )
    return requisite


# Ends a requisite's run of expiries (run by the close's load move: see
# requisite_run_ends).
RUN_ENDED = (
    f"UPDATE {Requisite._meta.db_table} SET expired_in_a_row = 0"
    " WHERE id = %s AND expired_in_a_row > 0"
)


def requisite_run_ends(*, status: str, actor: str) -> bool:
    """Whether a close ends its requisite's run of expiries: any close but an expiry
    does, except what a sandbox simulation does, which neither counts nor ends it. The
    close's load move writes it (orders.services.load, with the requisite's figures)."""
    return status != OrderStatus.EXPIRED and actor != SIMULATION_ACTOR


def requisite_count_expiry(*, requisite_id, actor: str) -> None:
    """In the transaction that expires an order on the requisite: an expiry by the
    clock adds one to the requisite's run of expiries, and switches it off when the run
    reaches `auto_disable_after`."""
    if requisite_id is None or actor == SIMULATION_ACTOR:
        return
    row = Requisite.objects.filter(pk=requisite_id)
    if actor == CLOCK_EXPIRY_ACTOR:
        row.update(expired_in_a_row=F("expired_in_a_row") + 1)
        row.filter(
            is_active=True,
            auto_disable_after__isnull=False,
            expired_in_a_row__gte=F("auto_disable_after"),
        ).update(is_active=False, disabled_reason=RequisiteDisabledReason.AUTO_EXPIRED)
