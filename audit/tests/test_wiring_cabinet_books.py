"""The actions of the cabinet, the devices and the settlements each write one entry,
with the right actor, object and client address."""

from audit.context import _request
from audit.models import AuditEntry
from core.testing import ApiClient
from orders.tests.factories import RequisiteFactory, TraderFactory
from settlements.models import Settlement
from settlements.tests.test_settlements import signed_in
from traders.devices import device_add, device_remove
from traders.tests.cabinet import make_cabinet

ADDRESS = "127.0.0.1"


def entries(action: str):
    return list(AuditEntry.objects.filter(action=action))


def test_a_traders_requisite_switch_is_one_entry_of_that_trader(db):
    requisite = RequisiteFactory()
    trader = requisite.trader
    api = ApiClient(trader.raw_key)
    response = api.post(f"/api/v1/trader/requisites/{requisite.pk}/disable")
    assert response.status_code == 200, response.content
    (entry,) = entries("requisite.disable")
    assert (entry.actor_kind, entry.actor_id) == ("trader", str(trader.pk))
    assert (entry.object_type, entry.object_id) == ("orders.requisite", str(requisite.pk))
    assert entry.client_address == ADDRESS
    assert entry.changes["disabled_reason"] == "trader"


def test_settlement_entry_and_decision_are_one_entry_each(db):
    trader = TraderFactory()
    first, second = signed_in("operator"), signed_in("operator2")
    first.post(
        "/admin/settlements/new/",
        {"kind": "trader_deposit", "account": str(trader.pk), "amount": "500.00", "comment": ""},
    )
    settlement = Settlement.objects.get()
    (entered,) = entries("settlement.enter")
    assert (entered.actor_kind, entered.actor_id) == ("operator", "operator")
    assert entered.object_id == str(settlement.pk)
    second.post(f"/admin/settlements/{settlement.pk}/approve/")
    settlement.refresh_from_db()
    assert settlement.status == "completed"
    (approved,) = entries("settlement.approve")
    assert (approved.actor_kind, approved.actor_id) == ("operator", "operator2")
    assert approved.changes["status"] == ["awaiting_approval", "completed"]


def test_adding_and_removing_a_device_in_the_cabinet_are_entries(db, rf):
    cabinet = make_cabinet()  # a trader with a cabinet user and requisites
    trader = cabinet.trader
    before = AuditEntry.objects.count()
    request = rf.post("/trader/devices/")
    request.user = cabinet.user
    token = _request.set(request)
    try:
        device, _raw = device_add(trader=trader, name="Phone")
        device_remove(device=device)
    finally:
        _request.reset(token)
    assert AuditEntry.objects.count() == before + 2
    mine = AuditEntry.objects.filter(object_id=str(device.pk))
    (added,) = mine.filter(action="device.add")
    assert (added.actor_kind, added.actor_id) == ("trader", str(trader.pk))
    (removed,) = mine.filter(action="device.remove")
    assert "dev_" not in str(added.changes) + str(removed.changes)  # never the token
