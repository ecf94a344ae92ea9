"""Every movement of a terminal's money. Each function runs in one transaction,
locks the balance row first and writes a ledger row where money is posted."""

import base64
import secrets
import string
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from urllib.parse import quote

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from core import memo
from core.error_codes import ErrorCode
from core.errors import InsufficientFunds, InvalidRequest, ServiceError
from core.keys import generate_key
from core.money import quantize_money

from .models import (
    ApiKey,
    Balance,
    PaymentMethod,
    Reserve,
    ReserveState,
    Terminal,
    Transaction,
    TransactionType,
)


class LedgerError(ServiceError):
    code = ErrorCode.LEDGER_ERROR


def balance_lock(*, terminal_id) -> Balance:
    return Balance.objects.select_for_update().get(terminal_id=terminal_id)


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


def balance_covers_check(balance: Balance, amount: Decimal) -> None:
    """402 when the balance's available money does not cover `amount`."""
    if balance.available < amount:
        raise InsufficientFunds(
            f"Insufficient funds: available {balance.available:.2f}, required {amount:.2f}"
        )


@transaction.atomic
def balance_reserve(*, terminal_id, amount: Decimal, reference: str) -> Reserve:
    """available -> frozen, for a Sell that is about to be Pending."""
    balance = balance_lock(terminal_id=terminal_id)
    balance_covers_check(balance, amount)
    balance.available -= amount
    balance.frozen += amount
    balance.save(update_fields=["available", "frozen", "updated_at"])
    return Reserve.objects.create(balance=balance, amount=amount, reference=reference)


def _close_reserve(reserve_id, state: str) -> tuple[Balance, Reserve]:
    reserve = Reserve.objects.select_related("balance").get(pk=reserve_id)
    balance = balance_lock(terminal_id=reserve.balance.terminal_id)
    reserve = Reserve.objects.select_for_update().get(pk=reserve_id)
    if reserve.state != ReserveState.OPEN:
        raise LedgerError(f"Reserve is already {reserve.state}")
    reserve.state = state
    reserve.closed_at = timezone.now()
    reserve.save(update_fields=["state", "closed_at"])
    return balance, reserve


@transaction.atomic
def balance_post(*, reserve_id, description: str) -> Transaction:
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
    )


@transaction.atomic
def balance_void(*, reserve_id) -> Reserve:
    """The reserve goes back: frozen -> available, nothing is posted."""
    balance, reserve = _close_reserve(reserve_id, ReserveState.VOIDED)
    balance.frozen -= reserve.amount
    balance.available += reserve.amount
    balance.save(update_fields=["available", "frozen", "updated_at"])
    return reserve


@transaction.atomic
def balance_credit(
    *, terminal_id, amount: Decimal, description: str, reference: str = "", actor: str = ""
) -> Transaction:
    if amount <= 0:
        raise InvalidRequest("Amount must be positive")
    balance = balance_lock(terminal_id=terminal_id)
    balance.available += amount
    balance.save(update_fields=["available", "updated_at"])
    return _append(
        balance,
        amount=amount,
        kind=TransactionType.DEPOSIT,
        description=description,
        reference=reference,
        actor=actor,
    )


@transaction.atomic
def balance_debit(
    *, terminal_id, amount: Decimal, description: str, actor: str = ""
) -> Transaction:
    if amount <= 0:
        raise InvalidRequest("Amount must be positive")
    balance = balance_lock(terminal_id=terminal_id)
    balance_covers_check(balance, amount)
    balance.available -= amount
    balance.save(update_fields=["available", "updated_at"])
    return _append(
        balance,
        amount=amount,
        kind=TransactionType.WITHDRAWAL,
        description=description,
        actor=actor,
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


# --- Payment methods -------------------------------------------------------------------

DEEPLINK_FIELDS = ("account", "amount", "order_id")


def deeplink_template_problem(template: str) -> str | None:
    """Why a deeplink template would not render, or None. Only the plain fields
    {account}, {amount} and {order_id} may appear: no attributes, indexes or formats."""
    try:
        fields = [
            (name, spec, conversion)
            for _, name, spec, conversion in string.Formatter().parse(template)
            if name is not None
        ]
    except ValueError as exc:
        return f"Unbalanced braces: {exc}"
    for name, spec, conversion in fields:
        if name not in DEEPLINK_FIELDS or spec or conversion:
            return (
                f"Unknown field {{{name}}}: use {', '.join('{' + f + '}' for f in DEEPLINK_FIELDS)}"
            )
    return None


def method_deeplink(
    method: PaymentMethod, *, account: str, amount: Decimal, order_id
) -> str | None:
    """The bank app link for paying `amount` to `account`, or None without a template."""
    template = method.deeplink_template
    if not template or deeplink_template_problem(template):
        return None
    return template.format(
        account=quote(account, safe=""), amount=f"{amount:.2f}", order_id=order_id
    )


def fee_ranges_check(ranges: list[dict]) -> None:
    """One method's fee ranges as they are about to be saved (dicts with side,
    currency, min_amount, max_amount, fee). A rate is a percentage of the amount; two
    ranges of one side must not overlap, or which one applies would depend on the
    order rows come in. Raises InvalidRequest with the first problem."""
    for data in ranges:
        if data.get("fee") is not None and data["fee"] > 100:
            raise InvalidRequest("A fee is a percentage: at most 100.")
        low, high = data.get("min_amount"), data.get("max_amount")
        if low is not None and high is not None and low > high:
            raise InvalidRequest(f"Range {low}-{high}: the minimum is above the maximum.")
    for i, a in enumerate(ranges):
        for b in ranges[i + 1 :]:
            if (
                a.get("side") == b.get("side")
                and a.get("currency") == b.get("currency")
                and None not in (a.get("min_amount"), b.get("max_amount"))
                and None not in (b.get("min_amount"), a.get("max_amount"))
                and a["min_amount"] <= b["max_amount"]
                and b["min_amount"] <= a["max_amount"]
            ):
                raise InvalidRequest(
                    f"{a['side']} ranges {a['min_amount']}-{a['max_amount']} and "
                    f"{b['min_amount']}-{b['max_amount']} overlap."
                )


# --- Terminals and keys ---------------------------------------------------------------


def terminal_create(*, client, name: str, webhook_secret: str, **fields) -> Terminal:
    with transaction.atomic():
        terminal = Terminal.objects.create(
            client=client, name=name, webhook_secret=webhook_secret, **fields
        )
        Balance.objects.create(terminal=terminal, currency=terminal.currency)
    return terminal


def new_webhook_secret() -> str:
    """A Standard Webhooks secret: whsec_ and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


WEBHOOK_SECRET_OVERLAP = timedelta(hours=24)


def terminal_webhook_secret_rotate(*, terminal: Terminal) -> str:
    """A new signing secret for the terminal; returned once so it can be handed over.
    The secret it replaces keeps signing beside it for WEBHOOK_SECRET_OVERLAP (both
    signatures in one header), so a receiver verifies throughout its switch. Rotating
    again within the overlap drops the oldest: only the last two ever sign."""
    with transaction.atomic():
        locked = Terminal.objects.select_for_update().get(pk=terminal.pk)
        locked.webhook_secret_previous = locked.webhook_secret
        locked.webhook_secret_previous_until = timezone.now() + WEBHOOK_SECRET_OVERLAP
        locked.webhook_secret = new_webhook_secret()
        locked.save(
            update_fields=[
                "webhook_secret",
                "webhook_secret_previous",
                "webhook_secret_previous_until",
            ]
        )
    for name in ("webhook_secret", "webhook_secret_previous", "webhook_secret_previous_until"):
        setattr(terminal, name, getattr(locked, name))
    return terminal.webhook_secret


def terminal_webhook_secrets(*, terminal: Terminal) -> list[str]:
    """The secrets that sign now: the current one, then the previous one while its
    overlap lasts."""
    secrets_ = [terminal.webhook_secret]
    until = terminal.webhook_secret_previous_until
    if terminal.webhook_secret_previous and until and until > timezone.now():
        secrets_.append(terminal.webhook_secret_previous)
    return secrets_


WEBHOOK_URLS_MAX = 10


def terminal_webhook_urls_set(*, terminal: Terminal, urls: list[str]) -> list[str]:
    """Replace the terminal's webhook URL list (already validated), keeping the
    first occurrence of each."""
    urls = list(dict.fromkeys(urls))
    Terminal.objects.filter(pk=terminal.pk).update(webhook_urls=urls)
    memo.changed()  # an update() sends no post_save
    terminal.webhook_urls = urls
    return urls


def api_key_issue(
    *, terminal: Terminal, name: str = "", raw: str | None = None
) -> tuple[ApiKey, str]:
    """A new key; the raw value is returned once and never stored."""
    raw = raw or generate_key("pk")
    key = ApiKey(terminal=terminal, name=name)
    key.set_key(raw)
    key.save()
    return key, raw


def api_key_revoke(*, key):
    """Revoke a terminal's or a trader's key (both are ApiKeyBase)."""
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


# --- Ledger check -----------------------------------------------------------------------


@dataclass
class LedgerMismatch:
    terminal: str
    field: str
    expected: Decimal
    actual: Decimal


def ledger_check() -> list[LedgerMismatch]:
    """Recompute every balance from its ledger and open reserves."""
    problems: list[LedgerMismatch] = []
    for balance in Balance.objects.select_related("terminal").order_by("terminal__name"):
        # SQLite adds decimals as floats (650751.02 came back as 650751.019999999):
        # sums are rounded to the cent, far coarser than that error, finer than any
        # real drift.
        sums = {
            row["transaction_type"]: quantize_money(row["s"])
            for row in balance.transactions.values("transaction_type").annotate(s=Sum("amount"))
        }
        total = (sums.get(TransactionType.DEPOSIT) or Decimal(0)) - (
            sums.get(TransactionType.WITHDRAWAL) or Decimal(0)
        )
        frozen = quantize_money(
            balance.reserves.filter(state=ReserveState.OPEN).aggregate(s=Sum("amount"))["s"] or 0
        )
        last = balance.transactions.order_by("-created_at", "-id").first()
        name = balance.terminal.name
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
    return problems
