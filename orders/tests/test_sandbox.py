"""Test mode (docs/sandbox.md): sandbox terminals, magic amounts, simulate, the wall
between live and sandbox."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

from conftest import ApiClient, buy_body, sell_body
from core.db import DbNow
from finance.models import Balance, Transaction
from finance.services import ledger_check
from orders import tasks
from orders.models import Order, Trader
from orders.tests.world import World, trader_for
from webhooks.models import WebhookEvent

URL = "/api/v1/order/"


def sandbox_world() -> World:
    """A live shop and a sandbox shop, 100000.00 each, on Sberbank SBP and T-Bank SBP: two
    live traders hold a requisite on Sberbank SBP each, the sandbox trader two; nobody
    holds one on T-Bank SBP."""
    world = World.build(
        {"Sberbank SBP": 2, "T-Bank SBP": 0},
        sandbox_holders={"Sberbank SBP": 2},
        available="100000.00",
        name="Live Shop",
    )
    world.sandbox_shop = world.terminal(sandbox=True, available="100000.00", name="Sandbox Shop")
    return world


@pytest.fixture
def world(db) -> World:
    return sandbox_world()


@pytest.fixture
def shop(world) -> ApiClient:
    return world.api


@pytest.fixture
def sandbox(world) -> ApiClient:
    return ApiClient(world.sandbox_shop.raw_key)


@pytest.fixture
def sandbox_trader(world) -> ApiClient:
    return ApiClient(f"trader-key-{world.sandbox_trader.pk}")


@pytest.fixture
def traders(world) -> list[ApiClient]:
    """The live traders' clients."""
    return [ApiClient(f"trader-key-{r.trader_id}") for r in world.requisites]


def simulate(client, order_id, **body):
    return client.post(f"/api/v1/sandbox/order/{order_id}/simulate", body)


def sandbox_balance(world) -> Balance:
    return Balance.objects.get(terminal=world.sandbox_shop)


def events(order_id) -> list[str]:
    return list(
        WebhookEvent.objects.filter(order_id=order_id)
        .order_by("sequence")
        .values_list("type", flat=True)
    )


# --- live and sandbox never meet ---------------------------------------------------------


def test_sandbox_order_is_livemode_false_and_held_by_the_sandbox_trader(sandbox, world):
    response = sandbox.post(URL, buy_body(world, amount="1500.00"))
    assert response.status_code == 201, response.content
    order = response.json()
    assert order["livemode"] is False
    assert order["status"] == "Pending"
    assert Order.objects.get(pk=order["id"]).trader.sandbox is True


def test_live_order_is_livemode_true_and_held_by_a_live_trader(shop, world):
    order = shop.post(URL, buy_body(world, amount="1500.00")).json()
    assert order["livemode"] is True
    assert Order.objects.get(pk=order["id"]).trader.sandbox is False


def test_events_carry_the_orders_own_livemode_and_actor_sandbox(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.00")).json()
    # An operator turning the terminal live later moves no order: its events keep the
    # livemode the order was created with.
    world.sandbox_shop.sandbox = False
    world.sandbox_shop.save(update_fields=["sandbox"])
    from orders.services import order_simulate

    order_simulate(order=Order.objects.get(pk=order["id"]), action="cancel")
    rows = list(WebhookEvent.objects.filter(order_id=order["id"]).order_by("sequence"))
    assert [(e.type, e.livemode, e.actor) for e in rows] == [
        ("order.created", False, "merchant"),
        ("order.cancelled", False, "sandbox"),
    ]
    for event in rows:
        assert event.payload["livemode"] is False
        assert event.payload["data"]["order"]["livemode"] is False


def test_livemode_is_one_rule_for_terminals_orders_metrics_and_the_outbox(sandbox, shop, world):
    from core.metrics import livemode_label
    from webhooks.services import terminal_livemode

    assert (world.shop.livemode, world.sandbox_shop.livemode) == (True, False)
    live = Order.objects.get(pk=shop.post(URL, buy_body(world, amount="1500.00")).json()["id"])
    test = Order.objects.get(pk=sandbox.post(URL, buy_body(world, amount="1500.00")).json()["id"])
    assert [livemode_label(o) for o in (live, test)] == ["true", "false"]
    assert [terminal_livemode(t) for t in (world.shop, world.sandbox_shop)] == [True, False]
    assert livemode_label(object()) == "true"  # what does not say is live


def test_live_orders_never_take_sandbox_requisites_when_live_ones_are_full(shop, world):
    body = buy_body(world, amount="2000.00")
    statuses = [shop.post(URL, body).status_code for _ in range(3)]
    # Two live requisites on Sberbank SBP; the sandbox trader's two stay out of reach.
    assert statuses == [201, 201, 500]
    assert not Order.objects.filter(trader__sandbox=True).exists()


def test_sandbox_orders_never_take_live_requisites(sandbox, world):
    body = buy_body(world, amount="2000.00")
    assert [sandbox.post(URL, body).status_code for _ in range(3)] == [201, 201, 500]
    assert set(Order.objects.values_list("trader__sandbox", flat=True)) == {True}


def test_live_traders_never_list_sandbox_orders(sandbox, sandbox_trader, traders, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.00")).json()
    for trader in traders:
        listed = trader.get("/api/v1/trader/orders").json()["orders"]["items"]
        assert order["id"] not in [o["id"] for o in listed]
        assert trader.post(f"/api/v1/trader/orders/{order['id']}/confirm").status_code == 404
    listed = sandbox_trader.get("/api/v1/trader/orders").json()["orders"]["items"]
    assert [o["id"] for o in listed] == [order["id"]]


def test_sandbox_trader_confirms_like_any_trader_and_the_sandbox_balance_moves(
    sandbox, sandbox_trader, world
):
    order = sandbox.post(URL, buy_body(world, amount="1000.00")).json()
    response = sandbox_trader.post(f"/api/v1/trader/orders/{order['id']}/confirm")
    assert response.json()["order"]["status"] == "Completed"
    assert sandbox_balance(world).available == Decimal("100950.00")
    assert Balance.objects.get(terminal=world.shop).available == Decimal("100000.00")


# --- magic amounts ------------------------------------------------------------------------


def test_point_11_completes_as_if_the_trader_confirmed(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.11")).json()
    assert order["status"] == "Pending"

    assert tasks.sandbox_act(order["id"]) is True

    body = sandbox.get(f"{URL}{order['id']}").json()["order"]
    assert body["status"] == "Completed"
    assert body["paid_amount"] == body["amount"] == "1500.11"
    # 1500.11 less 5 % (75.01): the sandbox balance is credited like a live one.
    assert sandbox_balance(world).available == Decimal("101425.10")
    assert Transaction.objects.filter(reference=order["id"], transaction_type="deposit").exists()
    assert events(order["id"]) == ["order.created", "order.completed"]
    assert Order.objects.get(pk=order["id"]).closed_by == "sandbox"
    assert ledger_check() == []


def test_point_12_is_cancelled_as_if_the_trader_declined(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.12")).json()
    tasks.sandbox_act(order["id"])
    assert sandbox.get(f"{URL}{order['id']}").json()["order"]["status"] == "Cancelled"
    assert events(order["id"]) == ["order.created", "order.cancelled"]
    assert sandbox_balance(world).available == Decimal("100000.00")


def test_point_13_expires_as_if_its_time_ran_out(sandbox, world):
    order = sandbox.post(URL, sell_body(world, amount="1500.13")).json()
    assert sandbox_balance(world).frozen > 0
    tasks.sandbox_act(order["id"])
    assert sandbox.get(f"{URL}{order['id']}").json()["order"]["status"] == "Expired"
    assert events(order["id"]) == ["order.created", "order.expired"]
    balance = sandbox_balance(world)
    assert (balance.available, balance.frozen) == (Decimal("100000.00"), Decimal("0.00"))
    assert ledger_check() == []


def test_point_14_is_refused_at_creation_with_the_no_traders_500(sandbox, world):
    response = sandbox.post(URL, buy_body(world, amount="1500.14"))
    assert response.status_code == 500
    assert response.json()["message"].startswith("No available traders")
    assert response.json()["code"] == "no_available_traders"
    assert not Order.objects.exists()


def test_magic_sell_completes_and_posts_its_reserve(sandbox, world):
    order = sandbox.post(URL, sell_body(world, amount="1000.11")).json()
    tasks.sandbox_act(order["id"])
    balance = sandbox_balance(world)
    # 1000.11 + 3 % (30.00) + 50 fixed, paid out.
    assert (balance.available, balance.frozen) == (Decimal("98919.89"), Decimal("0.00"))
    assert ledger_check() == []


def test_unique_amount_keeps_the_kopecks_and_the_magic(sandbox, world):
    body = buy_body(world, amount="1500.11", unique_amount=True)
    first, second, third = (sandbox.post(URL, body).json() for _ in range(3))
    assert third["amount"] == "1501.11"
    tasks.sandbox_act(third["id"])
    assert sandbox.get(f"{URL}{third['id']}").json()["order"]["status"] == "Completed"


def test_other_amounts_stay_pending(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.15")).json()
    assert tasks.sandbox_act(order["id"]) is False
    Order.objects.filter(pk=order["id"]).update(created_at=timezone.now() - timedelta(minutes=1))
    assert tasks.sandbox_sweep() == 0
    assert sandbox.get(f"{URL}{order['id']}").json()["order"]["status"] == "Pending"


def test_magic_amounts_are_ordinary_on_live_terminals(shop, world):
    order = shop.post(URL, buy_body(world, amount="1500.11")).json()
    assert shop.post(URL, buy_body(world, amount="1500.14")).status_code == 201
    Order.objects.update(created_at=timezone.now() - timedelta(minutes=1))
    assert tasks.sandbox_act(order["id"]) is False
    assert tasks.sandbox_sweep() == 0
    assert set(Order.objects.values_list("status", flat=True)) == {"Pending"}


def test_the_sweep_acts_on_magic_orders_whose_task_was_lost(sandbox, world):
    old = sandbox.post(URL, buy_body(world, amount="1500.11")).json()
    fresh = sandbox.post(URL, buy_body(world, amount="1600.12")).json()
    Order.objects.filter(pk=old["id"]).update(created_at=timezone.now() - timedelta(seconds=5))

    assert tasks.sandbox_sweep() == 1

    assert sandbox.get(f"{URL}{old['id']}").json()["order"]["status"] == "Completed"
    # Younger than the task's countdown: the task is still on its way.
    assert sandbox.get(f"{URL}{fresh['id']}").json()["order"]["status"] == "Pending"


def test_acting_twice_changes_nothing_more(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.11")).json()
    assert tasks.sandbox_act(order["id"]) is True
    Order.objects.filter(pk=order["id"]).update(created_at=timezone.now() - timedelta(seconds=5))
    assert tasks.sandbox_act(order["id"]) is False
    assert tasks.sandbox_sweep() == 0
    assert events(order["id"]) == ["order.created", "order.completed"]
    # One movement on each of the three sides: the merchant, the trader (debit, reward), the platform.
    assert Transaction.objects.filter(reference=order["id"]).count() == 4


def test_a_magic_order_the_merchant_cancelled_first_is_left_alone(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.11")).json()
    assert sandbox.post(f"{URL}{order['id']}/cancel").status_code == 200
    assert tasks.sandbox_act(order["id"]) is False
    assert sandbox.get(f"{URL}{order['id']}").json()["order"]["status"] == "Cancelled"


def test_a_magic_order_past_its_expiry_expires_by_the_clock(sandbox, world, settings):
    order = sandbox.post(URL, buy_body(world, amount="1500.11")).json()
    Order.objects.filter(pk=order["id"]).update(expires_at=DbNow())
    assert tasks.sandbox_act(order["id"]) is False
    assert Order.objects.get(pk=order["id"]).status == "Expired"


# --- simulate -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "status", "event"),
    [
        ("complete", "Completed", "order.completed"),
        ("cancel", "Cancelled", "order.cancelled"),
        ("expire", "Expired", "order.expired"),
    ],
)
def test_simulate_drives_the_order_like_a_trader_or_the_clock(
    sandbox, world, action, status, event
):
    order = sandbox.post(URL, buy_body(world, amount="1500.00")).json()
    response = simulate(sandbox, order["id"], action=action)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["success"] is True and isinstance(body["message"], str)
    assert body["order"]["id"] == order["id"]
    assert body["order"]["status"] == status
    assert body["order"]["livemode"] is False
    assert events(order["id"]) == ["order.created", event]
    assert Order.objects.get(pk=order["id"]).closed_by == "sandbox"


def test_simulate_complete_with_paid_amount_charges_the_fee_on_what_arrived(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1000.00")).json()
    response = simulate(sandbox, order["id"], action="complete", paid_amount="900.00")
    assert response.json()["order"]["paid_amount"] == "900.00"
    assert response.json()["order"]["fee_amount"] == "45.00"
    assert sandbox_balance(world).available == Decimal("100855.00")
    assert ledger_check() == []


def test_simulate_a_closed_order_is_409(sandbox, world):
    order = sandbox.post(URL, buy_body(world, amount="1500.00")).json()
    simulate(sandbox, order["id"], action="cancel")
    response = simulate(sandbox, order["id"], action="complete")
    assert response.status_code == 409
    assert response.json()["code"] == "order_not_pending"
    assert response.json()["success"] is False


def test_simulate_with_a_live_key_is_403_sandbox_only(shop, world):
    order = shop.post(URL, buy_body(world, amount="1500.00")).json()
    response = simulate(shop, order["id"], action="complete")
    assert response.status_code == 403
    assert response.json() == {
        "success": False,
        "message": "Sandbox endpoints need a sandbox terminal's key",
        "code": "sandbox_only",
    }
    assert Order.objects.get(pk=order["id"]).status == "Pending"


def test_simulate_another_terminals_order_is_404(shop, sandbox, world):
    live = shop.post(URL, buy_body(world, amount="1500.00")).json()
    response = simulate(sandbox, live["id"], action="complete")
    assert response.status_code == 404
    assert response.json()["code"] == "order_not_found"
    assert simulate(sandbox, "not-an-id", action="complete").status_code == 404
    assert Order.objects.get(pk=live["id"]).status == "Pending"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"action": "confirm"},
        {"action": None},
        {"action": "complete", "paid_amount": "-1"},
        {"action": "complete", "paid_amount": "0"},
        {"action": "complete", "paid_amount": "1.234"},
        {"action": "complete", "paid_amount": "abc"},
        {"action": "complete", "paid_amount": None},
        {"action": "cancel", "paid_amount": "100.00"},
    ],
)
def test_simulate_bad_input_is_400_and_changes_nothing(sandbox, world, body):
    order = sandbox.post(URL, buy_body(world, amount="1500.00")).json()
    response = sandbox.post(f"/api/v1/sandbox/order/{order['id']}/simulate", body)
    assert response.status_code == 400, response.content
    assert response.json()["success"] is False
    assert response.json()["code"] == "validation_error"
    assert Order.objects.get(pk=order["id"]).status == "Pending"


def test_simulate_a_sell_with_another_paid_amount_is_400(sandbox, world):
    order = sandbox.post(URL, sell_body(world, amount="1000.00")).json()
    response = simulate(sandbox, order["id"], action="complete", paid_amount="900.00")
    assert response.status_code == 400
    assert response.json()["errors"]["paid_amount"]


def test_simulate_without_a_key_is_401(anonymous, world):
    response = anonymous.post("/api/v1/sandbox/order/x/simulate", {"action": "complete"})
    assert response.status_code == 401


def test_simulate_is_in_the_openapi_schema(anonymous):
    schema = anonymous.get("/api/schema/", headers={"Accept": "application/json"}).json()
    operation = schema["paths"]["/api/v1/sandbox/order/{order_id}/simulate"]["post"]
    assert operation["operationId"] == "sandbox_order_simulate"
    assert {"200", "400", "403", "404", "409"} <= set(operation["responses"])


# --- world data and the ledger -------------------------------------------------------------


def test_demo_sandbox_data_is_as_listed(demo):
    shop = demo.sandbox_shop
    assert shop.sandbox and shop.form_activated and shop.integration_type == "h2h"
    assert shop.client.name == "Demo Merchant"
    assert [t.client_description for t in shop.balance.transactions.all()] == ["Initial deposit"]
    assert shop.balance.available == Decimal("100000.00")
    buttons = set(shop.methods.exclude(button_name=None).values_list("button_name", flat=True))
    assert buttons == {"SberPay", "TPay", "AlfaPay", "VTBPay"}
    assert shop.methods.filter(enabled=True).count() == len(demo.methods)
    sandbox_trader = Trader.objects.get(sandbox=True)
    held = sorted(sandbox_trader.requisites.values_list("method__name", flat=True))
    assert held == sorted(
        ["Sberbank SBP", "T-Bank SBP", "Alfa-Bank SBP", "VTB SBP", "Bank card", "MTS Bank SBP"] * 2
    )
    assert not Trader.objects.filter(sandbox=False, requisites__trader__sandbox=True).exists()
    call_command("seed_demo", force=True, verbosity=0)
    assert Trader.objects.filter(sandbox=True).count() == 1
    assert sandbox_trader.requisites.count() == 12


def test_check_ledger_is_clean_after_sandbox_traffic(sandbox, world):
    for amount in ("1500.11", "1500.12", "1500.13"):
        order = sandbox.post(URL, sell_body(world, amount=amount)).json()
        tasks.sandbox_act(order["id"])
    call_command("check_ledger", verbosity=0)


def test_trader_for_helper_still_finds_live_traders(shop, world):
    order = shop.post(URL, buy_body(world, amount="1500.00")).json()
    assert trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm").status_code == 200
