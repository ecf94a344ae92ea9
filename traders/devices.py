"""Devices: adding one (its token shown once), binding requisites, removal, being heard
from. The cabinet, the admin and the device API call these."""

import functools
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from audit.models import ActorKind
from audit.services import audit_record, request_actor
from core import memo
from core.errors import InvalidRequest
from core.keys import generate_key, hash_key
from core.prepared import prepared_cursor
from core.sql_rows import columns, from_joined_row
from orders.models import Requisite, Trader

from .models import TOKEN_PREFIX, Device

# last_seen_at is written at most this often by notifications (the heartbeat always
# writes): the offline state is counted in minutes, a burst must not write per request.
SEEN_RESOLUTION = timedelta(seconds=15)


def device_add(
    *, trader: Trader, name: str, requisites=(), raw_token: str | None = None
) -> tuple[Device, str]:
    """A new device of `trader` bound to `requisites` (each the trader's own) and its
    token, which is never stored nor shown again. `raw_token` is for the demo data only."""
    raw = raw_token or generate_key(TOKEN_PREFIX)
    with transaction.atomic():
        device = Device(trader=trader, name=(name or "").strip() or "Device")
        device.set_token(raw)
        device.save()
        device_bind(device=device, requisites=requisites)
        _audit(device, "device.add", {"name": device.name})
    return device, raw


def _audit(device: Device, action: str, changes: dict) -> None:
    kind, actor_id = request_actor()
    if kind == ActorKind.SYSTEM:
        return  # the demo data or a command: no person acted
    audit_record(actor_kind=kind, actor_id=actor_id, action=action, obj=device, changes=changes)


def device_bind(*, device: Device, requisites) -> Device:
    """Bind exactly `requisites` to the device; another trader's requisite is refused."""
    requisites = list(requisites)
    foreign = [r for r in requisites if r.trader_id != device.trader_id]
    if foreign:
        raise InvalidRequest("A device can be bound only to its own trader's requisites")
    device.requisites.set(requisites)
    return device


def device_remove(*, device: Device) -> Device:
    """Revoke the device's token at once; its notifications stay."""
    if device.revoked_at is None:
        with transaction.atomic():
            device.revoked_at = timezone.now()
            device.save(update_fields=["revoked_at"])
            _audit(device, "device.remove", {"revoked": True})
    return device


# The active devices by their token's digest, with their traders, kept per process
# between requests (core.memo): a device's every request reads it. A removed device,
# or one whose trader is switched off, is refused at once all the same: each change
# to a device or a trader makes every kept entry stale.
_kept = memo.Memo("devices")


def device_for_token(raw: str, digest: str | None = None) -> Device | None:
    """The active device whose token this is (its trader active too), or None.
    `digest`: the token's, when the caller has it. Kept per process; otherwise read in
    one statement, written out and prepared once per connection (core.prepared)."""
    if not raw:
        return None
    digest = digest or hash_key(raw)
    kept = _kept.get(digest)
    if kept is not None:
        return kept[0]
    with prepared_cursor() as cursor:
        cursor.execute(_device_sql(connection.vendor), [digest])
        row = cursor.fetchone()
    if row is None:
        return None
    (device, trader), _rest = from_joined_row(row, Device, Trader)
    if not trader.is_active:
        return None
    Device.trader.field.set_cached_value(device, trader)
    _kept.put(digest, memo.snapshot([device]))
    return device


@functools.cache
def _device_sql(vendor: str) -> str:
    # as Device.objects.select_related("trader").filter(token_hash=..., revoked_at=None)
    return (
        f"SELECT {columns(Device, 'd')}, {columns(Trader, 't')} "
        f"FROM {Device._meta.db_table} d JOIN {Trader._meta.db_table} t ON t.id = d.trader_id "
        "WHERE d.token_hash = %s AND d.revoked_at IS NULL"
    )


def device_seen(*, device: Device, always: bool = False) -> Device:
    """Note that the device was heard from now (a heartbeat always; anything else when
    the last note is older than SEEN_RESOLUTION)."""
    now = timezone.now()
    if always or device.last_seen_at is None or device.last_seen_at < now - SEEN_RESOLUTION:
        # Bookkeeping, not a change of the device: what is kept stays, updated in place.
        Device.objects.filter(pk=device.pk).update_quietly(last_seen_at=now)
        device.last_seen_at = now
        _kept.put(device.token_hash, memo.snapshot([device]))
    return device


def requisites_of_trader(trader: Trader):
    return Requisite.objects.filter(trader=trader).select_related("method")
