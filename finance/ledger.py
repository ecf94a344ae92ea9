"""The one ledger: every movement of every account's money.

Three kinds of account share it (`Balance.kind`): a merchant's terminal, a trader's
working deposit and the platform's revenue (one live, one sandbox). An account is named
by exactly one of `terminal_id=`, `trader_id=` or `platform=` (True for the sandbox
platform account, False for the live one). Each movement runs in one transaction: it
locks the balance row and changes it (a credit, a debit and an unfreeze in one UPDATE
whose condition the database checks on the locked row), and appends a Transaction
(with `balance_after`) where money is posted; the database's CHECKs refuse a negative
figure.
A trader's and the platform's row is made on first use.

A movement inside a caller's transaction (an order closing, a settlement decided)
joins it rather than opening a savepoint of its own: each one checks everything it
refuses before it writes, so a refusal leaves the caller's transaction as it was, and
a database error reaches the caller's own savepoint or transaction, which undoes it
whole. Alone, a movement is its own transaction.
"""

from dataclasses import dataclass
from decimal import Decimal
from functools import wraps

from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from core.error_codes import ErrorCode
from core.errors import InsufficientFunds, InvalidRequest, ServiceError
from core.money import quantize_money

from .balance_rows import account_filter, account_lock
from .ledger_rows import Rows, ledger_row_write
from .models import (
    CREDIT_TYPES,
    DEBIT_TYPES,
    AccountKind,
    Balance,
    Reserve,
    ReserveState,
    Transaction,
    TransactionType,
)
from .movements_together import row_moved, send_queued


@dataclass(frozen=True)
class Credit:
    """A credit that follows a movement on the same account, in the same row update
    (a trader's reward after the order's own money): one UPDATE instead of two, and a
    ledger row for each, in that order."""

    amount: Decimal
    kind: str
    description: str


def _then(credit: "Credit | None") -> Decimal:
    if credit is None:
        return Decimal(0)
    _positive(credit.amount)
    if credit.kind not in CREDIT_TYPES:
        raise ValueError(f"{credit.kind} is not a credit")
    return credit.amount


def _rows(first: dict, then: "Credit | None", reference: str, actor: str) -> Rows:
    """The movement's ledger rows (`first`, then the following credit's), each with
    what of the account's total after the change came after it: the credit's amount
    for the first row, nothing for the credit's own."""
    common = {"reference": reference, "created_by": actor}
    if then is None:
        return [({**first, **common}, Decimal(0))]
    credit = {"amount": then.amount, "transaction_type": then.kind}
    return [
        ({**first, **common}, then.amount),
        ({**credit, "client_description": then.description, **common}, Decimal(0)),
    ]


class LedgerError(ServiceError):
    code = ErrorCode.LEDGER_ERROR


def _movement(function):
    """Run in the caller's transaction when there is one (no savepoint: two round
    trips fewer per movement), else in a transaction of its own."""

    @wraps(function)
    def run(*args, **kwargs):
        if connection.in_atomic_block:
            return function(*args, **kwargs)
        with transaction.atomic():
            return function(*args, **kwargs)

    return run


def _append(
    balance: Balance,
    *,
    amount: Decimal,
    kind: str,
    description: str,
    reference: str = "",
    actor: str = "",
) -> Transaction:
    return ledger_row_write(
        balance=balance,
        amount=amount,
        transaction_type=kind,
        balance_after=balance.available + balance.frozen,
        client_description=description,
        reference=reference,
        created_by=actor,
    )


def _insufficient(balance: Balance, amount: Decimal) -> InsufficientFunds:
    return InsufficientFunds(
        _("Insufficient funds: available %(available)s, required %(required)s")
        % {"available": f"{balance.available:.2f}", "required": f"{amount:.2f}"}
    )


def balance_covers_check(balance: Balance, amount: Decimal) -> None:
    """402 when the balance's available money does not cover `amount` (a Sell's
    reserve, a withdrawal; availability asks the same without reserving)."""
    if balance.available < amount:
        raise _insufficient(balance, amount)


def _positive(amount: Decimal) -> None:
    if amount <= 0:
        raise InvalidRequest("Amount must be positive")


@_movement
def balance_reserve(
    *, amount: Decimal, reference: str, terminal_id=None, trader_id=None, reserve_id=None
) -> Reserve:
    """available -> frozen, for a Sell that is about to be Pending or a withdrawal
    waiting for its approval. `reserve_id`: the reserve's id when the caller has
    already written it (a Sell's order row names its reserve before it is made)."""
    _positive(amount)
    send_queued()
    balance = account_lock(terminal_id=terminal_id, trader_id=trader_id)
    balance_covers_check(balance, amount)
    balance.available -= amount
    balance.frozen += amount
    balance.save(update_fields=["available", "frozen", "updated_at"])
    made = {} if reserve_id is None else {"id": reserve_id}
    return Reserve.objects.create(balance=balance, amount=amount, reference=reference, **made)


def _close_reserve(reserve_id, state: str) -> tuple[Balance, Reserve]:
    send_queued()  # the rows changed before this one are locked before it
    reserve = Reserve.objects.select_related("balance").get(pk=reserve_id)
    balance = Balance.objects.select_for_update().get(pk=reserve.balance_id)
    reserve = Reserve.objects.select_for_update().get(pk=reserve_id)
    if reserve.state != ReserveState.OPEN:
        raise LedgerError(f"Reserve is already {reserve.state}")
    reserve.state = state
    reserve.closed_at = timezone.now()
    reserve.save(update_fields=["state", "closed_at"])
    return balance, reserve


@_movement
def balance_post(*, reserve_id, description: str, actor: str = "") -> Transaction:
    """The reserve leaves the books: frozen decreases, one withdrawal is recorded."""
    balance, reserve = _close_reserve(reserve_id, ReserveState.POSTED)
    balance.frozen -= reserve.amount
    balance.save(update_fields=["frozen", "updated_at"])
    return _append(
        balance,
        amount=reserve.amount,
        kind=TransactionType.WITHDRAWAL,
        description=description,
        reference=reserve.reference,
        actor=actor,
    )


@_movement
def balance_void(*, reserve_id) -> Reserve:
    """The reserve goes back: frozen -> available, nothing is posted."""
    balance, reserve = _close_reserve(reserve_id, ReserveState.VOIDED)
    balance.frozen -= reserve.amount
    balance.available += reserve.amount
    balance.save(update_fields=["available", "frozen", "updated_at"])
    return reserve


@_movement
def balance_credit(
    *,
    amount: Decimal,
    description: str,
    reference: str = "",
    actor: str = "",
    kind: str = TransactionType.DEPOSIT,
    terminal_id=None,
    trader_id=None,
    platform: bool | None = None,
    then_credit: Credit | None = None,
) -> Transaction:
    """Money in: `kind` is one of the credit types (deposit, order_sell, reward,
    revenue). `then_credit`: another credit right after it, in the same row update."""
    _positive(amount)
    if kind not in CREDIT_TYPES:
        raise ValueError(f"{kind} is not a credit")
    extra = _then(then_credit)
    lookup = account_filter(terminal_id=terminal_id, trader_id=trader_id, platform=platform)
    first = {"amount": amount, "transaction_type": kind, "client_description": description}
    return row_moved(
        lookup,
        made_on_first_use=terminal_id is None,
        refused=lambda: Balance.DoesNotExist(f"No balance for {lookup}"),
        rows=_rows(first, then_credit, reference, actor),
        available=amount + extra,
    )


@_movement
def balance_debit(
    *,
    amount: Decimal,
    description: str,
    reference: str = "",
    actor: str = "",
    kind: str = TransactionType.WITHDRAWAL,
    terminal_id=None,
    trader_id=None,
    platform: bool | None = None,
    unfreeze: Decimal = Decimal(0),
    then_credit: Credit | None = None,
) -> Transaction:
    """Money out of `available` (402 when it does not cover it); `unfreeze` first
    moves that much of the account's own frozen money back to available, in the same
    row update (a Buy's working deposit as it completes). `then_credit`: a credit
    right after the debit, in the same row update; the debit alone must be covered,
    as if the credit came in a statement of its own."""
    _positive(amount)
    if kind not in DEBIT_TYPES:
        raise ValueError(f"{kind} is not a debit")
    extra = _then(then_credit)
    lookup = account_filter(terminal_id=terminal_id, trader_id=trader_id, platform=platform)
    first = {"amount": amount, "transaction_type": kind, "client_description": description}

    def refused():
        balance = Balance.objects.filter(**lookup).first()
        if balance is None:
            return Balance.DoesNotExist(f"No balance for {lookup}")
        return _insufficient(balance, amount - unfreeze)

    return row_moved(
        lookup,
        made_on_first_use=terminal_id is None,
        refused=refused,
        rows=_rows(first, then_credit, reference, actor),
        available=unfreeze - amount + extra,
        frozen=-unfreeze if unfreeze else None,
        # the difference compared with zero: SQLite compares a bound number as text
        only_if=("ROUND(available + %s - %s, 2) >= 0", [unfreeze, amount]),
    )


@_movement
def balance_unfreeze(*, trader_id, amount: Decimal) -> None:
    """A Pending Buy's working deposit goes back to the trader's available."""
    lookup = account_filter(trader_id=trader_id)

    def refused():
        frozen = Balance.objects.filter(**lookup).values_list("frozen", flat=True).first()
        return LedgerError(f"Frozen {frozen or 0:.2f} is below {amount:.2f}")

    row_moved(
        lookup,
        made_on_first_use=False,
        refused=refused,
        rows=[],  # nothing is posted
        available=amount,
        frozen=-amount,
        only_if=("ROUND(frozen - %s, 2) >= 0", [amount]),
    )


def balance_adjust(*, terminal_id, amount: Decimal, description: str, actor: str) -> Transaction:
    """An operator's manual top-up (amount > 0) or withdrawal (amount < 0)."""
    if not description.strip():
        raise InvalidRequest("A comment is required for a manual adjustment")
    if amount > 0:
        return balance_credit(
            terminal_id=terminal_id, amount=amount, description=description, actor=actor
        )
    if amount < 0:
        return balance_debit(
            terminal_id=terminal_id, amount=-amount, description=description, actor=actor
        )
    raise InvalidRequest("Amount must not be zero")


# --- Ledger check -----------------------------------------------------------------------


@dataclass
class LedgerMismatch:
    account: str
    field: str
    expected: Decimal
    actual: Decimal

    @property
    def terminal(self) -> str:
        return self.account


# Apps above finance add what only they know: money frozen outside reserves (a
# trader's Pending Buys: {balance id: amount}) and checks of their own (each order's
# three movements adding up to zero), each a callable returning LedgerMismatch rows.
FROZEN_SOURCES: list = []
EXTRA_CHECKS: list = []


def _label(balance: Balance, names: dict) -> str:
    if balance.kind == AccountKind.TERMINAL:
        return balance.terminal.name
    if balance.kind == AccountKind.TRADER:
        return f"trader {names.get(balance.trader_id, balance.trader_id)}"
    return "platform (sandbox)" if balance.sandbox else "platform"


def signed_sum(transactions) -> Decimal:
    """Credits less debits of a Transaction queryset, rounded to the cent (SQLite adds
    decimals as floats: 650751.02 came back as 650751.019999999; the cent is far
    coarser than that error and finer than any real drift)."""
    sums = {
        row["transaction_type"]: quantize_money(row["s"])
        for row in transactions.values("transaction_type").annotate(s=Sum("amount"))
    }
    return sum((v for k, v in sums.items() if k in CREDIT_TYPES), Decimal(0)) - sum(
        (v for k, v in sums.items() if k in DEBIT_TYPES), Decimal(0)
    )


def ledger_check(*, trader_names: dict | None = None) -> list[LedgerMismatch]:
    """Recompute every account's balance from its ledger and its frozen money, then
    run the checks the apps above registered."""
    frozen_elsewhere: dict = {}
    for source in FROZEN_SOURCES:
        for balance_id, amount in source().items():
            frozen_elsewhere[balance_id] = frozen_elsewhere.get(balance_id, 0) + amount
    names = trader_names or {}
    problems: list[LedgerMismatch] = []
    for balance in Balance.objects.select_related("terminal").order_by("kind", "terminal__name"):
        total = signed_sum(balance.transactions.all())
        frozen = quantize_money(
            (balance.reserves.filter(state=ReserveState.OPEN).aggregate(s=Sum("amount"))["s"] or 0)
            + frozen_elsewhere.get(balance.pk, 0)
        )
        last = balance.transactions.order_by("-created_at", "-id").first()
        name = _label(balance, names)
        if total != balance.total:
            problems.append(LedgerMismatch(name, "total", total, balance.total))
        if frozen != balance.frozen:
            problems.append(LedgerMismatch(name, "frozen", frozen, balance.frozen))
        if balance.available < 0 or balance.frozen < 0:
            problems.append(
                LedgerMismatch(name, "sign", Decimal(0), min(balance.available, balance.frozen))
            )
        if last is not None and last.balance_after != total:
            problems.append(LedgerMismatch(name, "balance_after", total, last.balance_after))
    for check in EXTRA_CHECKS:
        problems.extend(check())
    return problems
