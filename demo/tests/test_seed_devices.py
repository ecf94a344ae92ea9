"""The demo's devices (traders.md §22): trader 1's phone bound to all of its
requisites; trader 4's to its MTS Bank requisite once trader 4 and the method exist."""

from decimal import Decimal

import pytest
from django.core.management import call_command

from demo.devices import seed_devices
from finance.tests.factories import PaymentMethodFactory
from orders.models import Requisite, Trader
from orders.services import trader_key_issue
from orders.tests.factories import RequisiteFactory
from traders.devices import device_for_token
from traders.models import Device

DEVICE_1 = "dev_demo-device-1-token-0000000000000000"
DEVICE_4 = "dev_demo-device-4-token-0000000000000000"


def test_trader_ones_device_is_bound_to_all_of_its_requisites(demo):
    device = device_for_token(DEVICE_1)
    assert device.trader.name == "Trader One"
    assert set(device.requisites.all()) == set(Requisite.objects.filter(trader=device.trader))
    assert device.requisites.count() == 3


def test_seeding_again_changes_nothing(demo):
    call_command("seed_demo", force=True, verbosity=0)
    assert Device.objects.count() == len(seed_devices())


@pytest.mark.django_db
def test_trader_fours_device_is_bound_to_its_mts_requisite_once_they_exist(demo):
    if device_for_token(DEVICE_4) is None:  # until trader 4 comes with the demo data
        trader = Trader.objects.create(name="Trader Four")
        trader_key_issue(trader=trader, name="demo", raw="demo-trader-4-key")
        mts = PaymentMethodFactory(name="MTS Bank SBP", nspk_code="100000000017")
        RequisiteFactory(trader=trader, method=mts, min_amount=Decimal(100))
        RequisiteFactory(trader=trader, method=demo.methods["Sberbank SBP"])
        seed_devices()
    device = device_for_token(DEVICE_4)
    assert [r.method.nspk_code for r in device.requisites.all()] == ["100000000017"]
