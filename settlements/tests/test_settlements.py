"""Settlements with four eyes (traders.md §19): entered on /admin/settlements/new/,
decided on /admin/settlements/ by another operator; merchants' own withdrawals."""

from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from core.testing import ApiClient, operator_user_create
from finance.models import Balance, Transaction
from finance.services import ledger_check
from finance.tests.factories import TerminalFactory
from orders.tests.factories import TraderFactory
from settlements.models import Settlement
from webhooks.models import WebhookEvent

NEW, LIST = "/admin/settlements/new/", "/admin/settlements/"
PASSWORD = "operator-demo-password"


@dataclass
class World:
    shop: object  # a terminal with 100000.00
    trader: object  # a trader with 100000000.00
    small_trader: object  # a trader with 1000.00


@pytest.fixture
def world(db) -> World:
    return World(
        shop=TerminalFactory(available="100000.00"),
        trader=TraderFactory(),
        small_trader=TraderFactory(deposit="1000.00"),
    )


def signed_in(username: str) -> Client:
    """A staff user of the Operators group, signed in."""
    operator_user_create()  # the group, and `operator`
    if username != "operator":
        user = get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True)
        user.groups.add(Group.objects.get(name="Operators"))
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


@pytest.fixture
def op1(db):
    return signed_in("operator")


@pytest.fixture
def op2(db):
    return signed_in("operator2")


def trader_balance(trader) -> tuple[Decimal, Decimal]:
    b = Balance.objects.get(trader_id=trader.pk)
    return b.available, b.frozen


def shop_balance(world) -> tuple[Decimal, Decimal]:
    b = Balance.objects.get(terminal=world.shop)
    return b.available, b.frozen


def enter(client, **data):
    return client.post(NEW, {"comment": "", **data})


def test_a_deposit_waits_for_another_operator_and_the_one_who_entered_it_cannot_decide(
    world, op1, op2
):
    trader = world.trader
    page = op1.get(NEW)
    assert page.status_code == 200 and b"csrfmiddlewaretoken" in page.content
    response = enter(
        op1, kind="trader_deposit", account=str(trader.pk), amount="500.00", comment="Wire 42"
    )
    assert response.status_code == 302
    settlement = Settlement.objects.get()
    assert (settlement.status, settlement.entered_by.username) == ("awaiting_approval", "operator")
    assert trader_balance(trader) == (Decimal("100000000.00"), Decimal("0.00"))

    own = op1.get(LIST).content.decode()
    assert f'data-settlement-id="{settlement.pk}"' in own
    assert 'data-testid="settlement-approve"' not in own
    assert 'data-testid="settlement-reject"' not in own
    # A forged POST by the operator who entered it changes nothing.
    for action in ("approve", "reject"):
        op1.post(f"{LIST}{settlement.pk}/{action}/")
    settlement.refresh_from_db()
    assert (settlement.status, settlement.decided_by, settlement.decided_at) == (
        "awaiting_approval",
        None,
        None,
    )
    assert trader_balance(trader) == (Decimal("100000000.00"), Decimal("0.00"))

    other = op2.get(LIST).content.decode()
    assert (
        'data-testid="settlement-approve"' in other and 'data-testid="settlement-reject"' in other
    )
    assert op2.post(f"{LIST}{settlement.pk}/approve/").status_code == 302
    settlement.refresh_from_db()
    assert settlement.status == "completed"
    assert settlement.decided_by.username == "operator2" and settlement.decided_at is not None
    assert trader_balance(trader) == (Decimal("100000500.00"), Decimal("0.00"))
    deposit = settlement.transaction
    assert (deposit.transaction_type, deposit.amount, deposit.client_description) == (
        "deposit",
        Decimal("500.00"),
        "Wire 42",
    )
    assert deposit.created_by == "operator2"
    # Decided once: a second decision changes nothing.
    op1.post(f"{LIST}{settlement.pk}/reject/")
    op2.post(f"{LIST}{settlement.pk}/reject/")
    settlement.refresh_from_db()
    assert settlement.status == "completed"
    assert ledger_check() == []


def test_a_withdrawal_is_frozen_at_entry_and_released_when_rejected(world, op1, op2):
    response = enter(op1, kind="merchant_withdrawal", account=str(world.shop.pk), amount="300.00")
    assert response.status_code == 302
    assert shop_balance(world) == (Decimal("99700.00"), Decimal("300.00"))
    settlement = Settlement.objects.get()
    op2.post(f"{LIST}{settlement.pk}/reject/")
    settlement.refresh_from_db()
    assert settlement.status == "rejected" and settlement.decided_by.username == "operator2"
    assert shop_balance(world) == (Decimal("100000.00"), Decimal("0.00"))
    assert ledger_check() == []


def test_an_approved_trader_withdrawal_posts_it(world, op1, op2):
    trader = world.small_trader  # 1000.00
    enter(op1, kind="trader_withdrawal", account=str(trader.pk), amount="999.99", comment="Out")
    assert trader_balance(trader) == (Decimal("0.01"), Decimal("999.99"))
    settlement = Settlement.objects.get()
    op2.post(f"{LIST}{settlement.pk}/approve/")
    assert trader_balance(trader) == (Decimal("0.01"), Decimal("0.00"))
    txn = Transaction.objects.get(reference=str(settlement.pk))
    assert (txn.transaction_type, txn.client_description) == ("withdrawal", "Out")
    assert ledger_check() == []


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "trader_withdrawal", "amount": "1000.01"},  # the small trader holds 1000.00
        {"amount": "1.234"},
        {"amount": "0"},
        {"amount": "-5.00"},
        {"amount": "abc"},
        {"amount": "1\x00"},
        {"kind": "merchant_gift"},
        {"account": "00000000-0000-0000-0000-000000000000"},
        {"account": "not-an-id"},
        {"kind": "merchant_deposit"},  # a trader's id for a terminal's kind
        {"comment": "x" * 256},
    ],
)
def test_bad_input_is_the_forms_own_error_and_nothing_moves(world, op1, data):
    trader = world.small_trader
    before = (trader_balance(trader), shop_balance(world), Transaction.objects.count())
    body = {"kind": "trader_deposit", "account": str(trader.pk), "amount": "10.00", **data}
    response = enter(op1, **body)
    assert response.status_code == 400
    assert b"errorlist" in response.content
    assert not Settlement.objects.exists()
    assert (trader_balance(trader), shop_balance(world), Transaction.objects.count()) == before


def _accounts(world, which: str):
    """(kind, account): the world's live terminal or trader, or a new sandbox one."""
    if which == "sandbox terminal":
        return "merchant_deposit", TerminalFactory(available="100000.00", sandbox=True)
    if which == "sandbox trader":
        return "trader_deposit", TraderFactory(sandbox=True)
    return {
        "live terminal": ("merchant_deposit", world.shop),
        "live trader": ("trader_deposit", world.trader),
    }[which]


def _all_balances() -> list:
    return sorted((str(b.pk), b.available, b.frozen) for b in Balance.objects.all())


@pytest.mark.parametrize("kind_of", ["deposit", "withdrawal"])
@pytest.mark.parametrize(
    ("which", "sandbox_money", "says"),
    [
        ("sandbox terminal", False, "песочниц"),  # live money for a sandbox account
        ("sandbox trader", False, "песочниц"),
        ("live terminal", True, "тестовые деньги"),  # test money for a live account
        ("live trader", True, "тестовые деньги"),
    ],
)
def test_a_settlement_never_mixes_sandbox_and_live_money(
    world, op1, which, sandbox_money, says, kind_of
):
    kind, owner = _accounts(world, which)
    kind = kind.replace("deposit", kind_of)
    before = (_all_balances(), Transaction.objects.count())
    data = {"kind": kind, "account": str(owner.pk), "amount": "10.00"}
    data["money"] = "sandbox" if sandbox_money else "live"
    response = op1.post(NEW, data, HTTP_ACCEPT_LANGUAGE="ru")
    assert response.status_code == 400
    page = response.content.decode()
    assert "errorlist" in page and says in page, page
    assert not Settlement.objects.exists()
    assert (_all_balances(), Transaction.objects.count()) == before


@pytest.mark.parametrize("said", [True, False])
@pytest.mark.parametrize("which", ["sandbox terminal", "sandbox trader", "live trader"])
def test_a_settlement_of_the_accounts_own_world_is_entered_and_approved(
    world, op1, op2, which, said
):
    """The account's own world, said or left blank (the form's four fields alone)."""
    kind, owner = _accounts(world, which)
    sandbox = which.startswith("sandbox")
    data = {"kind": kind, "account": str(owner.pk), "amount": "10.00"}
    if said:
        data["money"] = "sandbox" if sandbox else "live"
    assert enter(op1, **data).status_code == 302
    settlement = Settlement.objects.get()
    assert settlement.sandbox is sandbox
    listed = op2.get(LIST).content.decode()
    assert ('data-testid="settlement-sandbox"' in listed) is sandbox
    before = signed_sum_of(settlement.account)
    op2.post(f"{LIST}{settlement.pk}/approve/")
    settlement.refresh_from_db()
    assert settlement.status == "completed"
    assert signed_sum_of(settlement.account) == before + Decimal("10.00")
    assert ledger_check() == []


def signed_sum_of(owner) -> Decimal:
    from finance.models import Terminal

    if isinstance(owner, Terminal):
        b = Balance.objects.get(terminal=owner)
    else:
        b = Balance.objects.filter(trader_id=owner.pk).first()
    return b.total if b else Decimal(0)


def test_a_settlement_whose_account_changed_world_is_not_approved(world, op1, op2):
    """A terminal switched to the sandbox after a live deposit was entered for it: the
    approval is refused and nothing moves; a rejection still goes through."""
    enter(op1, kind="merchant_deposit", account=str(world.shop.pk), amount="10.00")
    settlement = Settlement.objects.get()
    world.shop.sandbox = True
    world.shop.save(update_fields=["sandbox"])
    before = (_all_balances(), Transaction.objects.count())
    response = op2.post(f"{LIST}{settlement.pk}/approve/", follow=True, HTTP_ACCEPT_LANGUAGE="ru")
    assert "песочниц" in response.content.decode()
    settlement.refresh_from_db()
    assert settlement.status == "awaiting_approval"
    assert (_all_balances(), Transaction.objects.count()) == before
    op2.post(f"{LIST}{settlement.pk}/reject/")
    settlement.refresh_from_db()
    assert settlement.status == "rejected"


def test_a_sandbox_merchants_own_withdrawal_is_sandbox_money(op1):
    sandbox_shop = TerminalFactory(available="100.00", sandbox=True)
    response = ApiClient(sandbox_shop.raw_key).post(
        "/api/v1/finance/withdrawals", {"amount": "10.00", "destination": "test"}
    )
    assert response.status_code == 201, response.json()
    settlement = Settlement.objects.get()
    assert settlement.sandbox is True
    op1.post(f"{LIST}{settlement.pk}/approve/")
    settlement.refresh_from_db()
    assert settlement.status == "completed"


def test_the_pages_are_russian_and_need_staff(world, op1):
    page = op1.get(LIST, HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Новый расчёт" in page
    assert Client().get(LIST).status_code == 302  # to the sign-in
    assert Client().post(NEW, {}).status_code == 302
    assert not Settlement.objects.exists()


# --- Merchants' withdrawals -------------------------------------------------------------

URL = "/api/v1/finance/withdrawals"


def test_a_merchant_asks_for_a_withdrawal_and_learns_the_decision_by_webhook(world, op1):
    shop = ApiClient(world.shop.raw_key)
    headers = {"Idempotency-Key": "w-1"}
    body = {"amount": "250.50", "destination": "IBAN RU00 1234", "comment": "Weekly"}
    response = shop.post(URL, body, headers=headers)
    assert response.status_code == 201, response.content
    withdrawal = response.json()["withdrawal"]
    assert {k: withdrawal[k] for k in ("amount", "destination", "comment", "status")} == {
        "amount": "250.50",
        "destination": "IBAN RU00 1234",
        "comment": "Weekly",
        "status": "awaiting_approval",
    }
    assert withdrawal["decided_at"] is None
    replay = shop.post(URL, body, headers=headers)
    assert replay.json()["withdrawal"]["id"] == withdrawal["id"]
    assert Settlement.objects.count() == 1
    assert shop_balance(world) == (Decimal("99749.50"), Decimal("250.50"))

    listed = shop.get(URL).json()["withdrawals"]
    assert [w["id"] for w in listed["items"]] == [withdrawal["id"]] and listed["total"] == 1
    assert shop.get(f"{URL}/{withdrawal['id']}").json()["withdrawal"] == withdrawal
    other = ApiClient(TerminalFactory().raw_key)
    assert other.get(f"{URL}/{withdrawal['id']}").status_code == 404
    assert other.get(f"{URL}/nope").status_code == 404
    assert other.get(URL).json()["withdrawals"]["total"] == 0

    # Entered by the merchant: any operator decides it.
    page = op1.get(LIST).content.decode()
    assert f'data-settlement-id="{withdrawal["id"]}"' in page
    assert 'data-testid="settlement-approve"' in page
    op1.post(f"{LIST}{withdrawal['id']}/approve/")
    done = shop.get(f"{URL}/{withdrawal['id']}").json()["withdrawal"]
    assert done["status"] == "completed" and done["decided_at"]
    assert shop_balance(world) == (Decimal("99749.50"), Decimal("0.00"))
    txn = Transaction.objects.get(reference=withdrawal["id"])
    assert (txn.transaction_type, txn.client_description) == ("withdrawal", "IBAN RU00 1234")
    event = WebhookEvent.objects.get(type="withdrawal.completed")
    assert event.payload["data"] == done and event.terminal_id == world.shop.pk
    events = shop.get("/api/v1/events", {"type": "withdrawal.completed"}).json()
    assert events["events"]["items"][0]["data"] == done
    assert ledger_check() == []


def test_a_rejected_withdrawal_is_unfrozen_and_told(world, op1):
    shop = ApiClient(world.shop.raw_key)
    withdrawal = shop.post(URL, {"amount": "100.00", "destination": "card"}).json()["withdrawal"]
    assert withdrawal["comment"] is None  # none given
    op1.post(f"{LIST}{withdrawal['id']}/reject/")
    assert shop_balance(world) == (Decimal("100000.00"), Decimal("0.00"))
    event = WebhookEvent.objects.get(type="withdrawal.rejected")
    assert event.payload["data"]["status"] == "rejected"
    body = {"amount": "1.00", "destination": "card", "comment": None}  # null is none too
    assert shop.post(URL, body).json()["withdrawal"]["comment"] is None


def test_a_withdrawal_beyond_available_is_402_and_moves_nothing(world):
    shop = ApiClient(world.shop.raw_key)
    response = shop.post(URL, {"amount": "100000.01", "destination": "card"})
    assert response.status_code == 402
    assert response.json()["message"].startswith("Insufficient funds")
    assert not Settlement.objects.exists()
    assert shop_balance(world) == (Decimal("100000.00"), Decimal("0.00"))


@pytest.mark.parametrize(
    "body",
    [
        {"amount": "1.234", "destination": "card"},
        {"amount": "0", "destination": "card"},
        {"amount": "-1", "destination": "card"},
        {"amount": "10.00"},
        {"amount": "10.00", "destination": ""},
        {"amount": "10.00", "destination": "x" * 256},
        {"amount": "10.00", "destination": "ca\x00rd"},
        {"amount": "10.00", "destination": "card", "comment": ""},
        {"amount": "10.00", "destination": "card", "comment": "x" * 256},
    ],
)
def test_bad_withdrawal_requests_are_400(world, body):
    response = ApiClient(world.shop.raw_key).post(URL, body)
    assert response.status_code == 400
    assert response.json()["success"] is False
    assert not Settlement.objects.exists()


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("1e3", "Запишите сумму без экспоненты."),
        ("1 000", "Запишите сумму без разделителей внутри, например 3100.50."),
        ("1.234", "Не больше двух знаков после запятой."),
        ("0", "Сумма должна быть больше нуля."),
        ("-5", "Отрицательная сумма не принимается: сумма должна быть больше нуля."),
        ("1" + "0" * 12, "Слишком много цифр до запятой: не больше двенадцати."),
        ("1_000", "Запишите сумму без разделителей внутри, например 3100.50."),
    ],
)
def test_each_wrong_amount_has_its_own_russian_words(world, op1, typed, says):
    op1.cookies["django_language"] = "ru"
    trader = world.small_trader
    body = {"kind": "trader_deposit", "account": str(trader.pk), "amount": typed}
    response = enter(op1, **body)
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Settlement.objects.exists()


def test_a_decimal_comma_is_read_and_a_refusal_is_said_in_russian(world, op1, op2):
    op1.cookies["django_language"] = op2.cookies["django_language"] = "ru"
    trader = world.small_trader
    withdrawal = {"kind": "trader_withdrawal", "account": str(trader.pk)}
    refused = enter(op1, **withdrawal, amount="1000,01").content.decode()
    assert "Недостаточно средств: доступно 1000.00, требуется 1000.01" in refused
    assert enter(op1, **withdrawal, amount="999,99").status_code == 302
    assert Settlement.objects.get().amount == Decimal("999.99")
    settlement = Settlement.objects.get()
    op2.post(f"{LIST}{settlement.pk}/approve/")
    again = op2.post(f"{LIST}{settlement.pk}/approve/", follow=True).content.decode()
    assert "По расчёту уже принято решение: Проведён" in again
    mine = op1.post(f"{LIST}{settlement.pk}/reject/", follow=True).content.decode()
    assert "Оператор, который ввёл расчёт, не может его решать" in mine
