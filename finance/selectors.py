from django.db.models import Prefetch, QuerySet

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
