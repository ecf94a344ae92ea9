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


def _account_filter(*, terminal_id=None, trader_id=None, platform: bool | None = None) -> dict:
    named = [v for v in (terminal_id, trader_id, platform) if v is not None]
    if len(named) != 1:
        raise ValueError("Name exactly one account: terminal_id, trader_id or platform")
    if terminal_id is not None:
        return {"terminal_id": terminal_id}
    if trader_id is not None:
        return {"kind": AccountKind.TRADER, "trader_id": trader_id}
    return {"kind": AccountKind.PLATFORM, "sandbox": bool(platform)}


def account_ensure(*, trader_id=None, platform: bool | None = None, sandbox: bool = False) -> None:
    """Make a trader's (or the platform's) balance row unless it exists; a row made
    meanwhile by another transaction wins."""
    if trader_id is not None:
        row = Balance(kind=AccountKind.TRADER, trader_id=trader_id, sandbox=sandbox)
    else:
        row = Balance(kind=AccountKind.PLATFORM, sandbox=bool(platform))
    Balance.objects.bulk_create([row], ignore_conflicts=True)


def account_lock(*, terminal_id=None, trader_id=None, platform: bool | None = None) -> Balance:
    """The account's balance row, locked until the transaction ends."""
    lookup = _account_filter(terminal_id=terminal_id, trader_id=trader_id, platform=platform)
    balance = Balance.objects.select_for_update().filter(**lookup).first()
    if balance is None and terminal_id is None:
        account_ensure(trader_id=trader_id, platform=platform)
        balance = Balance.objects.select_for_update().filter(**lookup).first()
    if balance is None:
        raise Balance.DoesNotExist(f"No balance for {lookup}")
    return balance


def balance_lock(*, terminal_id) -> Balance:
    return account_lock(terminal_id=terminal_id)


def _append(
    balance: Balance,
    *,
    amount: Decimal,
    kind: str,
    description: str,
    reference: str = "",
    actor: str = "",
) -> Transaction:
    return Transaction.objects.create(
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
    *, amount: Decimal, reference: str, terminal_id=None, trader_id=None
) -> Reserve:
    """available -> frozen, for a Sell that is about to be Pending or a withdrawal
    waiting for its approval."""
    _positive(amount)
    balance = account_lock(terminal_id=terminal_id, trader_id=trader_id)
    balance_covers_check(balance, amount)
    balance.available -= amount
    balance.frozen += amount
    balance.save(update_fields=["available", "frozen", "updated_at"])
    return Reserve.objects.create(balance=balance, amount=amount, reference=reference)


def _close_reserve(reserve_id, state: str) -> tuple[Balance, Reserve]:
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
) -> Transaction:
    """Money in: `kind` is one of the credit types (deposit, order_sell, reward,
    revenue)."""
    _positive(amount)
    if kind not in CREDIT_TYPES:
        raise ValueError(f"{kind} is not a credit")
    lookup = _account_filter(terminal_id=terminal_id, trader_id=trader_id, platform=platform)
    credited = _changed(lookup, made_on_first_use=terminal_id is None, available=amount)
    if credited is None:
        raise Balance.DoesNotExist(f"No balance for {lookup}")
    balance_id, total = credited
    return Transaction.objects.create(
        balance_id=balance_id,
        amount=amount,
        transaction_type=kind,
        balance_after=total,
        client_description=description,
        reference=reference,
        created_by=actor,
    )


def _change_row(lookup: dict, *, available=None, frozen=None, only_if=("", [])) -> tuple | None:
    """The account's row locked and changed in one statement (UPDATE ... RETURNING: no
    SELECT ... FOR UPDATE before it): `available` and `frozen` are the amounts added to
    each (negative to take away), `only_if` a condition on the row as it is and its
    parameters (the database evaluates it on the locked row). (its id, its total after), or None when
    no row matches. Rounded to cents in SQL, as SQLite keeps decimals as floats."""
    meta = Balance._meta
    prep = meta.get_field("available").get_db_prep_value
    sets, params = [], []
    for column, change in (("available", available), ("frozen", frozen)):
        if change is not None:
            sets.append(f"{column} = ROUND({column} + %s, 2)")
            params.append(prep(change, connection))
    sets.append("updated_at = %s")
    params.append(meta.get_field("updated_at").get_db_prep_value(timezone.now(), connection))
    where = []
    for name, value in lookup.items():
        field = meta.get_field(name)
        where.append(f"{field.column} = %s")
        params.append(field.get_db_prep_value(value, connection))
    condition, condition_params = only_if
    if condition:
        where.append(condition)
        params += [prep(value, connection) for value in condition_params]
    sql = (
        f"UPDATE {meta.db_table} SET {', '.join(sets)}"
        f" WHERE {' AND '.join(where)} RETURNING id, available, frozen"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    balance_id, now_available, now_frozen = row
    total = quantize_money(Decimal(str(now_available)) + Decimal(str(now_frozen)))
    return meta.pk.to_python(balance_id), total


def _changed(lookup: dict, *, made_on_first_use: bool, **change) -> tuple | None:
    """`_change_row`, making a trader's or the platform's row first when it has none."""
    changed = _change_row(lookup, **change)
    if changed is None and made_on_first_use and not Balance.objects.filter(**lookup).exists():
        account_ensure(
            trader_id=lookup.get("trader_id"),
            platform=lookup["sandbox"] if lookup.get("kind") == AccountKind.PLATFORM else None,
        )
        changed = _change_row(lookup, **change)
    return changed


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
) -> Transaction:
    """Money out of `available` (402 when it does not cover it); `unfreeze` first
    moves that much of the account's own frozen money back to available, in the same
    row update (a Buy's working deposit as it completes)."""
    _positive(amount)
    if kind not in DEBIT_TYPES:
        raise ValueError(f"{kind} is not a debit")
    lookup = _account_filter(terminal_id=terminal_id, trader_id=trader_id, platform=platform)
    debited = _changed(
        lookup,
        made_on_first_use=terminal_id is None,
        available=unfreeze - amount,
        frozen=-unfreeze if unfreeze else None,
        # the difference compared with zero: SQLite compares a bound number as text
        only_if=("ROUND(available + %s - %s, 2) >= 0", [unfreeze, amount]),
    )
    if debited is None:
        balance = Balance.objects.filter(**lookup).first()
        if balance is None:
            raise Balance.DoesNotExist(f"No balance for {lookup}")
        raise _insufficient(balance, amount - unfreeze)
    balance_id, total = debited
    return Transaction.objects.create(
        balance_id=balance_id,
        amount=amount,
        transaction_type=kind,
        balance_after=total,
        client_description=description,
        reference=reference,
        created_by=actor,
    )


@_movement
def balance_unfreeze(*, trader_id, amount: Decimal) -> None:
    """A Pending Buy's working deposit goes back to the trader's available."""
    lookup = _account_filter(trader_id=trader_id)
    unfrozen = _change_row(
        lookup, available=amount, frozen=-amount, only_if=("ROUND(frozen - %s, 2) >= 0", [amount])
    )
    if unfrozen is None:
        frozen = Balance.objects.filter(**lookup).values_list("frozen", flat=True).first()
        raise LedgerError(f"Frozen {frozen or 0:.2f} is below {amount:.2f}")


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
