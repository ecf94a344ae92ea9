"""Who caused a change, as merchants see it (docs/webhooks.md#payload): the one place a service's
detailed actor string ("trader:<id>", "operator:<name>", "expiry") becomes its kind.
Events carry the kind; the detailed string stays on the order (closed_by) for audit.
In core so that every app, and anything counting by actor, uses the same answer."""

from django.db import models


class Actor(models.TextChoices):
    MERCHANT = "merchant", "merchant"
    TRADER = "trader", "trader"
    OPERATOR = "operator", "operator"
    PAYER = "payer", "payer"
    SYSTEM = "system", "system"
    SANDBOX = "sandbox", "sandbox"
    DEVICE = "device", "device"


_ALIASES = {"expiry": Actor.SYSTEM, "sweep": Actor.SYSTEM}
_KINDS = frozenset(Actor.values)  # Actor.values builds a new list at every read


def actor_kind(actor: str) -> str:
    """The kind of a detailed actor string. Anything that names no known kind is an
    operator: only the admin passes bare user names."""
    kind = (actor or "").split(":", 1)[0].strip().lower()
    kind = _ALIASES.get(kind, kind)
    return kind if kind in _KINDS else Actor.OPERATOR
