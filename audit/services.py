"""`audit_record`: the one way an entry is written, in the caller's transaction.

Call it inside the same `transaction.atomic()` as the action it records, so an action
without its entry cannot exist:

    with transaction.atomic():
        order = order_confirm(order_id=..., actor=...)
        audit_record(actor_kind=ActorKind.TRADER, actor_id=trader.pk,
                     action="order.confirm", obj=order, request=request)

`changes` is what changed, as JSON (`{"field": [old, new]}` or any small dict). It is
scrubbed before it is written: a value under a name that says password, secret,
token or key is replaced by "[redacted]", a webhook secret by its prefix, and a card
or account number of 16 to 19 digits is masked to its first 6 and last 4 digits.
Without `request` the request being served is used (its client address).
"""

import json
import re
from functools import lru_cache

from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from core.actors import actor_kind as kind_of_actor
from core.client_address import client_address
from core.fast_insert import insert_row

from .context import current_request
from .models import ActorKind, AuditEntry

REDACTED = "[redacted]"
# AuditEntry's fields in their order, as audit_record passes them
ENTRY_COLUMNS = (
    "id",
    "created_at",
    "actor_kind",
    "actor_id",
    "client_address",
    "action",
    "object_type",
    "object_id",
    "changes",
)
_ACTOR_KINDS = frozenset(ActorKind.values)
_SECRET_NAME = re.compile(
    r"pass(word)?|secret|token|raw_key|key_hash|hashed|^key$|api_?key$|otp|credential", re.I
)
_WEBHOOK_SECRET = re.compile(r"whsec_[A-Za-z0-9+/=_-]+")
_CARD = re.compile(r"(?<!\d)\d(?:[ -]?\d){15,18}(?!\d)")


class _Encoder(DjangoJSONEncoder):
    """Django's JSON types, and any other value (a file, bytes) as its text."""

    def default(self, o):
        try:
            return super().default(o)
        except TypeError:
            return str(o)


def _mask_card(match: re.Match) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    if not 16 <= len(digits) <= 19:
        return match.group(0)
    return f"{digits[:6]}{'*' * (len(digits) - 10)}{digits[-4:]}"


_ENCODER = _Encoder()
_KEY_WORDS = {True: "true", False: "false", None: "null"}


def _key(key) -> str:
    """A dict key as JSON writes it."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return _KEY_WORDS[key]
    return json.dumps(key) if isinstance(key, int | float) else str(key)


@lru_cache(maxsize=1024)
def _secret_name(name: str) -> bool:
    """Whether a value under `name` is a secret (the names are a model's fields and
    the keys the code writes: few, so each is matched once)."""
    return _SECRET_NAME.search(name) is not None


def _scrub_text(value: str) -> str:
    """`value` with a webhook secret cut to its prefix and a card number masked; the
    patterns run only where they can match (a secret's prefix is there; 16 characters
    at least, as the shortest card number has)."""
    if "whsec_" in value:
        value = _WEBHOOK_SECRET.sub("whsec_" + REDACTED, value)
    if len(value) >= 16:
        value = _CARD.sub(_mask_card, value)
    return value


def scrub(value, name: str = ""):
    """`value` as plain JSON (what `json.loads(json.dumps(value))` gives, with Django's
    types as DjangoJSONEncoder writes them and any other value as its text), with
    every secret removed and every card number masked: one walk."""
    if name and _secret_name(name):
        return REDACTED
    if isinstance(value, str):
        return _scrub_text(str.__str__(value))
    if value is None or isinstance(value, int | float):
        return value
    if isinstance(value, dict):
        return {key: scrub(v, key) for key, v in ((_key(k), v) for k, v in value.items())}
    if isinstance(value, list | tuple):
        return [scrub(v, name) for v in value]
    return scrub(_ENCODER.default(value), name)


def actor_parts(actor: str) -> tuple[str, str]:
    """(kind, id) of a service's actor string: "trader:<id>", "merchant:<id>",
    "device:<id>", "operator:<name>" or a bare operator's name; "expiry" and the like
    are the system."""
    kind = kind_of_actor(actor)
    ident = actor.split(":", 1)[1] if ":" in actor else ("" if kind != "operator" else actor)
    if kind not in ActorKind.values:
        kind = ActorKind.SYSTEM
    return kind, ident


def request_actor(request=None) -> tuple[str, str]:
    """(actor kind, id) of the person behind the request being served: an operator by
    user name, a trader (a user linked to one) by the trader's id; else the system."""
    request = request or current_request()
    user = getattr(request, "user", None)
    if not getattr(user, "is_authenticated", False) or not hasattr(user, "get_username"):
        return ActorKind.SYSTEM, ""  # no request, or an API key's caller
    trader = getattr(user, "trader", None)
    if trader is not None and not getattr(user, "is_staff", False):
        return ActorKind.TRADER, str(trader.pk)
    return ActorKind.OPERATOR, user.get_username()


def audit_record(
    *,
    actor_kind: str,
    actor_id="",
    action: str,
    obj=None,
    changes: dict | None = None,
    request=None,
    object_type: str = "",
    object_id="",
    ride: bool = False,
) -> AuditEntry:
    """Append one entry. `obj`: the model instance acted on (or give `object_type` and
    `object_id`); `actor_id`: the operator's user name, the trader's, terminal's or
    device's id. With `ride`, inside core.fast_insert's `riding()`, the entry is
    written with the action's next row, in its statement."""
    if actor_kind not in _ACTOR_KINDS:
        raise ValueError(f"Unknown actor kind {actor_kind!r}")
    request = request if request is not None else current_request()
    if obj is not None:
        object_type, object_id = obj._meta.label_lower, obj.pk
    # by position, in ENTRY_COLUMNS' order: a model made from keywords costs twice as much
    entry = AuditEntry(
        None,
        timezone.now(),
        actor_kind,
        str(actor_id or "")[:150],
        client_address(request)[:64] if request is not None else "",
        action,
        object_type,
        str(object_id or "")[:64],
        scrub(changes or {}),
    )
    insert_row(entry, ride=ride)  # as save() writes it, without the ORM's per-save cost
    if request is not None:
        audited = request.__dict__.setdefault("_audited_objects", set())
        audited.add((entry.object_type, entry.object_id))
    return entry


def audited_in_request(request, object_type: str, object_id: str) -> bool:
    """Whether this request already wrote an entry for the object (the admin's own
    history line of the same action then adds none)."""
    return (object_type, str(object_id)) in getattr(request, "_audited_objects", ())
