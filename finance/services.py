"""Finance's services: payment methods and fee ranges, terminals and their keys; the
ledger's movements (finance/ledger.py) are named from here too."""

import base64
import secrets
import string
from datetime import timedelta
from decimal import Decimal
from urllib.parse import quote

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidRequest
from core.keys import generate_key

from .balance_rows import Lead, account_ensure, account_lock  # noqa: F401  (named from here too)
from .ledger import (  # noqa: F401  (the ledger's services, named from here too)
    EXTRA_CHECKS,
    FROZEN_SOURCES,
    Credit,
    LedgerError,
    LedgerMismatch,
    balance_adjust,
    balance_covers_check,
    balance_credit,
    balance_debit,
    balance_post,
    balance_reserve,
    balance_unfreeze,
    balance_void,
    ledger_check,
    signed_sum,
)
from .models import ApiKey, Balance, PaymentMethod, Terminal
from .movements_together import movements_together  # noqa: F401  (named from here too)

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
        # The platform's accounts (live and sandbox: a terminal can be switched) before
        # any of its orders closes. Made by a first close instead, the new row would be
        # changed after the rows queued behind it, against the lock order: two closes
        # at once could deadlock (finance.movements_together).
        account_ensure(platform=False)
        account_ensure(platform=True)
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


def terminal_webhook_urls_set(*, terminal: Terminal, urls: list[str]) -> list[str]:
    """Replace the terminal's webhook URL list (already validated), keeping the
    first occurrence of each."""
    urls = list(dict.fromkeys(urls))
    Terminal.objects.filter(pk=terminal.pk).update(webhook_urls=urls)
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
