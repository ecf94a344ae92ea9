"""A trader with two bank requisites (Sberbank and VTB), a live terminal serving
both, and a device bound to them: the ground every device test stands on."""

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from django.test import Client

from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import Requisite, Trader
from orders.tests.factories import RequisiteFactory, TraderFactory, buy_order
from traders.devices import device_add
from traders.models import Device

SBER, VTB = "100000000111", "100000000005"
NOTIFICATIONS = "/api/v1/device/notifications"
HEARTBEAT = "/api/v1/device/heartbeat"


@dataclass
class Ground:
    terminal: object
    sber: object
    vtb: object
    trader: Trader
    sber_requisite: Requisite
    vtb_requisite: Requisite
    device: Device
    token: str

    def buy(self, amount, method=None, terminal=None):
        return buy_order(
            terminal=terminal or self.terminal, method=method or self.sber, amount=amount
        )


def ground(*, sandbox: bool = False) -> Ground:
    sber = PaymentMethodFactory(name="Sberbank SBP", nspk_code=SBER)
    vtb = PaymentMethodFactory(name="VTB SBP", nspk_code=VTB)
    terminal = TerminalFactory(methods=[sber, vtb], available="100000.00", sandbox=sandbox)
    trader = TraderFactory(sandbox=sandbox)
    sber_requisite = RequisiteFactory(trader=trader, method=sber)
    vtb_requisite = RequisiteFactory(trader=trader, method=vtb)
    device, token = device_add(
        trader=trader, name="Pixel", requisites=[sber_requisite, vtb_requisite]
    )
    return Ground(terminal, sber, vtb, trader, sber_requisite, vtb_requisite, device, token)


def send(token, *, text, id="n-1", source="900", title="", received_at=None, **extra):
    body = {
        "id": id,
        "source": source,
        "title": title,
        "text": text,
        "received_at": received_at or datetime.now(UTC).isoformat(),
        **extra,
    }
    headers = {} if token is None else {"X-Device-Token": token}
    return Client().post(
        NOTIFICATIONS, json.dumps(body), content_type="application/json", headers=headers
    )


def sber_sms(amount: str) -> str:
    return f"СЧЁТ2838 14:02 Перевод {amount}р от Иван И. Баланс: 24210.55р"
