"""Entering and deciding settlements; a merchant's own withdrawals. Every change is one
transaction: the settlement row locked, the money moved through finance's ledger."""

from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.models import ActorKind
from audit.services import audit_record
from core.amounts import AMOUNT_WORDS, AmountError, read_amount, read_typed_amount
from core.error_codes import ErrorCode
from core.errors import Conflict, Forbidden, InvalidRequest
from core.fast_insert import insert_row, update_row
from core.formats import iso_utc, parse_uuid
from core.money import money_str
from core.riding import riding
from finance.models import Terminal, TransactionType
from finance.services import balance_credit, balance_post, balance_reserve, balance_void
from orders.models import Trader
from webhooks.models import EventType
from webhooks.services import event_record

from .models import (
    MERCHANT_KINDS,
    WITHDRAWALS,
    Settlement,
    SettlementKind,
    SettlementStatus,
)

TEXT_MAX = 255


def amount_parse(value) -> Decimal:
    """A settlement's amount by core.amounts' rules (one typed into the page may have a
    decimal comma). InvalidRequest naming `amount`, in its own words."""
    try:
        return read_typed_amount(value) if isinstance(value, str) else read_amount(value)
    except AmountError as error:
        message = str(AMOUNT_WORDS[error.code])
        raise InvalidRequest(message, errors={"amount": [message]}) from None


def text_check(value: str, *, field: str, required: bool) -> str:
    value = value or ""
    if "\x00" in value:
        message = _("%(field)s must not contain NUL") % {"field": field}
        raise InvalidRequest(message, errors={field: [_("NUL character")]})
    if required and not value.strip():
        message = _("%(field)s is required") % {"field": field}
        raise InvalidRequest(message, errors={field: [_("Required")]})
    if len(value) > TEXT_MAX:
        message = _("%(field)s is longer than %(max)d characters") % {
            "field": field,
            "max": TEXT_MAX,
        }
        raise InvalidRequest(message, errors={field: [_("Too long")]})
    return value


def _account(kind: str, account) -> dict:
    pk = parse_uuid(str(account)) if account is not None and "\x00" not in str(account) else None
    if kind in MERCHANT_KINDS:
        terminal = Terminal.objects.filter(pk=pk).first() if pk else None
        if terminal is None:
            message = _("Unknown account: no such terminal")
            raise InvalidRequest(message, errors={"account": [message]})
        return {"terminal": terminal}
    trader = Trader.objects.filter(pk=pk).first() if pk else None
    if trader is None:
        message = _("Unknown account: no such trader")
        raise InvalidRequest(message, errors={"account": [message]})
    return {"trader": trader}


def _same_world(account: dict, *, sandbox: bool | None) -> bool:
    """Live money never goes to a sandbox account and sandbox money never to a live
    one: 400 naming `account` when the account's world is not the settlement's. The
    settlement's world: `sandbox` when said, else the account's own."""
    owner = next(iter(account.values()))
    if sandbox is None or owner.sandbox == sandbox:
        return owner.sandbox
    if owner.sandbox:
        message = _(
            "This account is a sandbox one and the settlement is live money: "
            "live money never goes to a sandbox account."
        )
    else:
        message = _(
            "This account is live and the settlement is the sandbox's test money: "
            "test money never goes to a live account."
        )
    raise InvalidRequest(message, errors={"account": [message]})


def _freeze(settlement: Settlement) -> None:
    account = (
        {"terminal_id": settlement.terminal_id}
        if settlement.kind in MERCHANT_KINDS
        else {"trader_id": settlement.trader_id}
    )
    settlement.reserve = balance_reserve(
        amount=settlement.amount, reference=str(settlement.pk), **account
    )


def settlement_enter(
    *, kind: str, account, amount, comment: str = "", operator, sandbox: bool | None = None
) -> Settlement:
    """An operator enters a deposit or a withdrawal; it waits for another operator. A
    withdrawal is frozen now (402 when the available balance does not cover it).
    `sandbox`: the settlement is the sandbox's test money (True) or live money (False),
    and the account must be of that world (400 otherwise, nothing moved); None: the
    account's own world."""
    if kind not in SettlementKind.values:
        allowed = ", ".join(SettlementKind.values)
        message = _("Unknown kind; allowed: %(allowed)s") % {"allowed": allowed}
        raise InvalidRequest(message, errors={"kind": [allowed]})
    amount = amount_parse(amount)
    comment = text_check(comment, field="comment", required=False)
    owner = _account(kind, account)
    sandbox = _same_world(owner, sandbox=sandbox)
    with transaction.atomic():
        settlement = Settlement(
            kind=kind,
            amount=amount,
            comment=comment,
            sandbox=sandbox,
            entered_by=operator,
            **owner,
        )
        if kind in WITHDRAWALS:
            _freeze(settlement)
        with riding():  # the row and its entry in one statement (core.riding)
            insert_row(settlement, ride=True)
            audit_record(
                actor_kind=ActorKind.OPERATOR,
                actor_id=operator.get_username(),
                action="settlement.enter",
                obj=settlement,
                changes={
                    "kind": kind,
                    "amount": amount,
                    "account": str(account),
                    "sandbox": sandbox,
                },
                ride=True,
            )
    return settlement


def withdrawal_request(
    *, terminal: Terminal, amount, destination: str, comment: str = ""
) -> Settlement:
    """A merchant asks for its own withdrawal: frozen at once, awaiting an operator."""
    amount = amount_parse(amount)
    destination = text_check(destination, field="destination", required=True)
    comment = text_check(comment, field="comment", required=False)
    with transaction.atomic():
        settlement = Settlement(
            kind=SettlementKind.MERCHANT_WITHDRAWAL,
            terminal=terminal,
            sandbox=terminal.sandbox,
            amount=amount,
            destination=destination,
            comment=comment,
            entered_by_merchant=True,
        )
        _freeze(settlement)
        with riding():  # the row and its entry in one statement (core.riding)
            insert_row(settlement, ride=True)
            audit_record(
                actor_kind=ActorKind.MERCHANT,
                actor_id=terminal.pk,
                action="withdrawal.request",
                obj=settlement,
                changes={"amount": amount},
                ride=True,
            )
    return settlement


def may_decide(settlement: Settlement, operator) -> bool:
    """Four eyes: the operator who entered a settlement never decides it."""
    return settlement.entered_by_id is None or settlement.entered_by_id != operator.pk


def settlement_decide(*, settlement_id, approve: bool, operator) -> Settlement:
    """Approve (the money moves: a deposit credited, a withdrawal's reserve posted) or
    reject (a withdrawal's reserve voided). 403 for the operator who entered it, 409
    once decided. A merchant's withdrawal tells the merchant by webhook."""
    with transaction.atomic():
        # the account comes with it (its world is checked), locked is the settlement
        settlement = (
            Settlement.objects.select_for_update(of=("self",))
            .select_related("terminal", "trader")
            .filter(pk=settlement_id)
            .first()
        )
        if settlement is None:
            message = _("Unknown settlement")
            raise InvalidRequest(message, errors={"settlement": [message]})
        if not may_decide(settlement, operator):
            raise Forbidden(_("The operator who entered a settlement cannot decide it"))
        if settlement.status != SettlementStatus.AWAITING_APPROVAL:
            raise Conflict(
                _("Settlement is already decided: %(status)s")
                % {"status": settlement.get_status_display()},
                code=ErrorCode.CONFLICT,
            )
        actor = operator.get_username()
        if approve:
            # The account's world may have been switched since it was entered.
            _same_world({"owner": settlement.account}, sandbox=settlement.sandbox)
            settlement.transaction = _post(settlement, actor=actor)
            settlement.status = SettlementStatus.COMPLETED
        else:
            if settlement.reserve_id:
                balance_void(reserve_id=settlement.reserve_id)
            settlement.status = SettlementStatus.REJECTED
        settlement.decided_by = operator
        settlement.decided_at = timezone.now()
        # Its new state and its entry ride with the withdrawal's event, or go together
        # on their own (core.riding).
        with riding():
            update_row(settlement, ["status", "transaction", "decided_by", "decided_at"], ride=True)
            audit_record(
                actor_kind=ActorKind.OPERATOR,
                actor_id=actor,
                action="settlement.approve" if approve else "settlement.reject",
                obj=settlement,
                changes={"status": [SettlementStatus.AWAITING_APPROVAL, settlement.status]},
                ride=True,
            )
            if settlement.kind == SettlementKind.MERCHANT_WITHDRAWAL:
                _event(settlement, actor=f"operator:{actor}")
    return settlement


def _post(settlement: Settlement, *, actor: str):
    description = settlement.comment
    if settlement.kind == SettlementKind.MERCHANT_WITHDRAWAL and settlement.destination:
        description = settlement.destination
    if settlement.kind in WITHDRAWALS:
        return balance_post(reserve_id=settlement.reserve_id, description=description, actor=actor)
    account = (
        {"terminal_id": settlement.terminal_id}
        if settlement.kind in MERCHANT_KINDS
        else {"trader_id": settlement.trader_id}
    )
    return balance_credit(
        amount=settlement.amount,
        description=description,
        reference=str(settlement.pk),
        actor=actor,
        kind=TransactionType.DEPOSIT,
        **account,
    )


def render_withdrawal(settlement: Settlement) -> dict:
    return {
        "id": str(settlement.pk),
        "amount": money_str(settlement.amount),
        "destination": settlement.destination,
        "comment": settlement.comment or None,
        "status": settlement.status,
        "created_at": iso_utc(settlement.created_at),
        "decided_at": iso_utc(settlement.decided_at),
    }


def _event(settlement: Settlement, *, actor: str) -> None:
    completed = settlement.status == SettlementStatus.COMPLETED
    event_record(
        terminal=settlement.terminal,
        order_id=settlement.pk,
        event_type=EventType.WITHDRAWAL_COMPLETED if completed else EventType.WITHDRAWAL_REJECTED,
        sequence=1,
        data=render_withdrawal(settlement),
        webhook_url=None,
        actor=actor,
    )
