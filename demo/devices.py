"""The demo traders' phones (traders.md §22): trader 1's device bound to all of its
requisites, trader 4's to its MTS Bank requisite. Trader 4 and the MTS method come
with their own part of the demo data; until they exist, only trader 1's device is
made. Idempotent: a second run only re-binds."""

from core.keys import hash_key
from orders.models import Requisite, TraderApiKey
from traders.devices import device_add, device_bind
from traders.models import Device

MTS_NSPK = "100000000017"
# trader's demo API key, device name, device token, requisites (None: all of them)
DEVICES = [
    ("demo-trader-1-key", "Demo phone 1", "dev_demo-device-1-token-0000000000000000", None),
    ("demo-trader-4-key", "Demo phone 4", "dev_demo-device-4-token-0000000000000000", MTS_NSPK),
]


def seed_devices() -> list[Device]:
    seeded = []
    for trader_key, name, token, nspk_code in DEVICES:
        key = TraderApiKey.objects.select_related("trader").filter(key_hash=hash_key(trader_key))
        key = key.first()
        if key is None:
            continue
        requisites = Requisite.objects.filter(trader=key.trader)
        if nspk_code is not None:
            requisites = requisites.filter(method__nspk_code=nspk_code)
        if not requisites.exists():
            continue
        device = Device.objects.filter(token_hash=hash_key(token)).first()
        if device is None:
            device, _ = device_add(trader=key.trader, name=name, raw_token=token)
        device_bind(device=device, requisites=requisites)
        seeded.append(device)
    return seeded
