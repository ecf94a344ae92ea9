from django.db.models import Prefetch, QuerySet

from .banks import BANKS, Bank, bank_for
from .models import ApiKey, FeeRange, PaymentMethod, Terminal, TerminalMethod, Transaction


def terminal_methods(
    *, terminal: Terminal, active_only: bool = False, method_types=None
) -> QuerySet:
    qs = PaymentMethod.objects.linked_to(terminal).prefetch_related(
        Prefetch("ranges", queryset=FeeRange.objects.order_by("side", "min_amount"))
    )
    if active_only:
        qs = qs.filter(is_active=True)
    if method_types:
        qs = qs.filter(method_type__in=method_types)
    return qs.order_by("name", "id")


def terminal_method_enabled(*, terminal: Terminal, method: PaymentMethod) -> bool:
    return TerminalMethod.objects.filter(terminal=terminal, method=method, enabled=True).exists()


def transactions_for(
    *, terminal: Terminal, transaction_type=None, start=None, end=None
) -> QuerySet:
    qs = Transaction.objects.filter(balance__terminal=terminal)
    if transaction_type:
        qs = qs.filter(transaction_type=transaction_type)
    if start:
        qs = qs.filter(created_at__gte=start)
    if end:
        qs = qs.filter(created_at__lte=end)
    return qs.order_by("-created_at", "-id")


def api_key_for_digest(digest: str) -> ApiKey | None:
    """The terminal key with this digest, unless its terminal is deactivated."""
    key = (
        ApiKey.objects.select_related("terminal", "terminal__client")
        .filter(key_hash=digest)
        .first()
    )
    if key is not None and not key.terminal.is_active:
        return None
    return key


def terminal_banks(*, terminal: Terminal) -> list[Bank]:
    """The banks behind the terminal's enabled active methods (an aggregate method's
    banks are its bank methods, enabled on their own), in the bank table's order; a
    code the table does not know is named after its method."""
    methods = PaymentMethod.objects.filter(
        terminals__terminal=terminal,
        terminals__enabled=True,
        currency=terminal.currency,
        is_active=True,
        nspk_code__isnull=False,
    ).exclude(nspk_code="")
    found: dict[str, Bank] = {}
    for code, name, name_ru in methods.order_by("name").values_list("nspk_code", "name", "name_ru"):
        found.setdefault(code, bank_for(code) or Bank(code, name, name_ru or name))
    order = {code: position for position, code in enumerate(BANKS)}
    return sorted(found.values(), key=lambda b: (order.get(b.nspk_code, len(order)), b.name))
