"""POST /api/v1/order/availability: creation's checks and matcher, nothing written."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from conftest import buy_body, sell_body
from core.models import IdempotencyRecord
from core.testing import ApiClient
from finance.models import Balance, IntegrationType, Reserve, Transaction
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from forms_ui.models import FormSession
from orders.models import Order, RequisiteLoad
from orders.tests.factories import RequisiteFactory, TraderFactory, buy_order
from orders.tests.world import World
from webhooks.models import WebhookEvent

URL = "/api/v1/order/availability"
CREATE = "/api/v1/order/"


@pytest.fixture
def world(db):
    """A shop with 100000.00 deposited: a requisite on each of Sberbank SBP and T-Bank
    SBP, none on Ozon Bank SBP; the aggregate SBP, an inactive Legacy card and the
    blacklist's card and phone."""
    return World.build(
        {"SBP": 0, "Sberbank SBP": 1, "T-Bank SBP": 1, "Ozon Bank SBP": 0, "Legacy card": 0},
        available="100000.00",
        blacklist=True,
    )


@pytest.fixture
def shop(world):
    return world.api


def books() -> dict:
    """Every count and balance availability must leave as it found them."""
    return {
        "orders": Order.objects.count(),
        "reserves": list(Reserve.objects.values_list("id", "state", "amount").order_by("id")),
        "transactions": Transaction.objects.count(),
        "events": WebhookEvent.objects.count(),
        "idempotency": IdempotencyRecord.objects.count(),
        "sessions": FormSession.objects.count(),
        "loads": list(
            RequisiteLoad.objects.values_list(
                "requisite_id", "pending", "turnover", "day"
            ).order_by("requisite_id")
        ),
        "balances": list(Balance.objects.values_list("id", "available", "frozen").order_by("id")),
    }


def without_client_order_id(body: dict) -> dict:
    return {k: v for k, v in body.items() if k != "client_order_id"}


def test_a_buy_that_would_match_is_available_and_nothing_is_written(shop, world):
    before = books()
    response = shop.post(
        URL,
        without_client_order_id(buy_body(world, amount="1000.00")),
        headers={"Idempotency-Key": "avail-1"},
    )
    assert response.status_code == 200, response.content
    assert response.json() == {
        "success": True,
        "message": "OK",
        "available": True,
        "method_id": world.method_id("Sberbank SBP"),
        "amount": "1000.00",
        "fee_amount": "50.00",
    }
    assert books() == before


def test_the_aggregate_method_answers_the_bank_method_it_would_get(shop, world):
    body = {"order_side": "Buy", "method_type": "SBP", "amount": 500}
    answer = shop.post(URL, body).json()
    assert answer["available"] is True
    banks = {world.method_id(n) for n in ("Sberbank SBP", "T-Bank SBP")}
    assert answer["method_id"] in banks


def test_a_sell_is_available_without_a_reserve(shop, world):
    before = books()
    answer = shop.post(URL, without_client_order_id(sell_body(world, amount="1000.00"))).json()
    assert answer["available"] is True and answer["fee_amount"] == "80.00"
    assert books() == before


def test_no_trader_is_200_not_available(shop, world):
    before = books()
    response = shop.post(URL, without_client_order_id(buy_body(world, method="Ozon Bank SBP")))
    assert response.status_code == 200
    answer = response.json()
    assert answer["available"] is False
    assert answer["method_id"] == world.method_id("Ozon Bank SBP")
    assert (answer["amount"], answer["fee_amount"]) == ("1000.00", "50.00")
    assert shop.post(CREATE, buy_body(world, method="Ozon Bank SBP")).status_code == 500
    assert Order.objects.count() == before["orders"]


@pytest.mark.django_db
def test_unique_amount_answers_the_amount_creation_would_take():
    method = PaymentMethodFactory()
    terminal = TerminalFactory(methods=[method])
    RequisiteFactory(method=method)
    held = buy_order(terminal=terminal, method=method, amount="1000.00")
    merchant = ApiClient(terminal.raw_key)
    body = {"order_side": "Buy", "payment_method_id": str(method.pk), "amount": "1000.00"}
    before = books()
    assert merchant.post(URL, body).json()["available"] is False
    answer = merchant.post(URL, {**body, "unique_amount": True}).json()
    assert (answer["available"], answer["amount"]) == (True, "1001.00")
    assert answer["fee_amount"] == "50.05"
    assert books() == before
    created = merchant.post(CREATE, {**body, "client_order_id": "x", "unique_amount": True})
    assert created.json()["amount"] == "1001.00" and held.amount == Decimal("1000.00")


@pytest.mark.django_db
def test_a_requisite_without_its_load_row_is_left_without_one():
    method = PaymentMethodFactory()
    terminal = TerminalFactory(methods=[method])
    requisite = RequisiteFactory(method=method)
    RequisiteLoad.objects.filter(requisite=requisite).delete()
    body = {"order_side": "Buy", "payment_method_id": str(method.pk), "amount": "700"}
    answer = ApiClient(terminal.raw_key).post(URL, body).json()
    assert answer["available"] is True
    assert not RequisiteLoad.objects.filter(requisite=requisite).exists()


def make_overdue(order) -> None:
    Order.objects.filter(pk=order.pk).update(expires_at=timezone.now() - timedelta(seconds=5))


@pytest.mark.django_db
@pytest.mark.parametrize("unique_amount", [False, True])
def test_an_overdue_holder_is_counted_free_as_creation_would_free_it(unique_amount):
    """The only requisite's 1000.00 slot, its one Pending place (max_pending 1) and
    the whole deposit of its trader (1000.00) are held by a Buy past its expiry that
    the sweep has not reached: creation would expire it and match, so availability
    says available, and changes nothing (the holder stays Pending)."""
    method = PaymentMethodFactory()
    terminal = TerminalFactory(methods=[method])
    trader = TraderFactory(deposit="1000.00")
    RequisiteFactory(method=method, trader=trader, max_pending=1)
    holder = buy_order(terminal=terminal, method=method, amount="1000.00")
    make_overdue(holder)
    merchant = ApiClient(terminal.raw_key)
    body = {"order_side": "Buy", "payment_method_id": str(method.pk), "amount": "1000.00"}
    if unique_amount:
        body["unique_amount"] = True
    before = books()
    answer = merchant.post(URL, body).json()
    assert answer == {
        "success": True,
        "message": "OK",
        "available": True,
        "method_id": str(method.pk),
        "amount": "1000.00",
        "fee_amount": "50.00",
    }
    assert books() == before
    assert Order.objects.get(pk=holder.pk).status == "Pending"

    created = merchant.post(CREATE, {**body, "client_order_id": "after-the-overdue"})
    assert created.status_code == 201, created.json()
    assert created.json()["amount"] == "1000.00"
    assert Order.objects.get(pk=holder.pk).status == "Expired"


@pytest.mark.django_db
def test_a_holder_still_in_time_keeps_its_place():
    method = PaymentMethodFactory()
    terminal = TerminalFactory(methods=[method])
    RequisiteFactory(method=method, trader=TraderFactory(deposit="1000.00"))
    buy_order(terminal=terminal, method=method, amount="1000.00")
    body = {"order_side": "Buy", "payment_method_id": str(method.pk), "amount": "1000.00"}
    merchant = ApiClient(terminal.raw_key)
    assert merchant.post(URL, body).json()["available"] is False
    assert merchant.post(CREATE, {**body, "client_order_id": "c"}).status_code == 500


REFUSALS = {
    "no method": lambda world: {"order_side": "Buy", "amount": 100},
    "both ways": lambda world: {**buy_body(world), "method_type": "SBP"},
    "nspk without type": lambda world: {**buy_body(world), "nspk_code": "100000000004"},
    "unknown nspk": lambda world: {
        "order_side": "Buy",
        "method_type": "SBP",
        "nspk_code": "999",
        "amount": 700,
    },
    "inactive method": lambda world: buy_body(world, method="Legacy card"),
    "under the limits": lambda world: buy_body(world, amount="99.99"),
    "aggregate sell": lambda world: {
        **sell_body(world),
        "payment_method_id": world.method_id("SBP"),
    },
    "buy with account": lambda world: buy_body(world, customer_account="+79990001122"),
    "sell without account": lambda world: sell_body(world, account=""),
    "blacklisted": lambda world: sell_body(world, account="8 (999) 000-66-66"),
    "insufficient funds": lambda world: sell_body(world, amount="99990.00"),
    "unknown bank": lambda world: buy_body(world, customer_bank="nobank"),
    "bad amount": lambda world: buy_body(world, amount="-5"),
    "bad side": lambda world: buy_body(world, order_side="Both"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_body_creation_refuses_gets_the_same_answer(shop, world, case):
    body = REFUSALS[case](world)
    before = books()
    refused = shop.post(URL, without_client_order_id(body))
    created = shop.post(CREATE, {**body, "client_order_id": "same"})
    assert 400 <= created.status_code < 500, created.content
    assert (refused.status_code, refused.json()) == (created.status_code, created.json())
    assert books() == before


def test_the_antifraud_cap_refuses_alike(shop, world):
    for i in range(3):
        assert shop.post(CREATE, buy_body(world, amount=1000 + i, user_id="u-1")).status_code == 201
    before = books()
    refused = shop.post(URL, without_client_order_id(buy_body(world, amount=2000, user_id="u-1")))
    assert refused.status_code == 429
    assert refused.json()["message"].startswith("User has reached the maximum limit")
    assert shop.post(URL, buy_body(world, amount=2000, user_id="u-2")).json()["available"]
    assert books() == before


def test_a_form_terminal_creates_no_session(world):
    form_shop = world.other_terminal(
        integration_type=IntegrationType.ORDER_WITH_FORM, form_activated=True
    )
    before = books()
    answer = form_shop.post(URL, without_client_order_id(buy_body(world))).json()
    assert answer["available"] is True
    assert books() == before


def test_needs_a_terminal_key(anonymous, db):
    assert anonymous.post(URL, {"order_side": "Buy"}).status_code == 401
