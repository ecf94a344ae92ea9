"""The demo data set itself (spec/demo-data.md). Every other test builds its own rows
with factories; this is the one place that checks what `seed_demo` loads."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from core.keys import hash_key
from finance.accounts import luhn_ok
from finance.models import (
    ApiKey,
    BlacklistedAccount,
    PaymentMethod,
    Terminal,
    TerminalMethod,
    Transaction,
)
from orders.models import Requisite, Trader, TraderApiKey

SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="
BANK_METHODS = ["Sberbank SBP", "T-Bank SBP", "Alfa-Bank SBP", "VTB SBP", "Bank card"]


def counts():
    return [
        Terminal.objects.count(),
        ApiKey.objects.count(),
        PaymentMethod.objects.count(),
        Requisite.objects.count(),
        Transaction.objects.count(),
        Trader.objects.count(),
        TraderApiKey.objects.count(),
        BlacklistedAccount.objects.count(),
        get_user_model().objects.count(),
    ]


def test_seed_demo_twice_leaves_one_copy(demo):
    before = counts()
    call_command("seed_demo", force=True, verbosity=0)
    assert counts() == before
    # Sandbox Shop and the sandbox trader (with its twelve requisites and its key)
    # included, trader 4 with its MTS Bank SBP requisite, and the deposits of the two
    # shops and five traders.
    assert before[:7] == [4, 5, 9, 23, 7, 5, 5]


def test_seed_demo_refuses_with_debug_off_without_force(db, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("seed_demo", verbosity=0)
    assert Terminal.objects.count() == 0


@pytest.mark.parametrize(
    ("terminal", "raw", "client", "integration", "form", "available"),
    [
        ("Demo Shop", "demo-shop-key", "Demo Merchant", "h2h", True, "100000.00"),
        ("Form Shop", "demo-form-key", "Demo Merchant", "order_with_form", True, "0.00"),
        ("Closed Shop", "demo-closed-key", "Closed Merchant", "h2h", False, "0.00"),
        ("Sandbox Shop", "demo-sandbox-key", "Demo Merchant", "h2h", True, "100000.00"),
    ],
)
def test_terminals_keys_and_balances(demo, terminal, raw, client, integration, form, available):
    key = ApiKey.objects.select_related("terminal__client").get(key_hash=hash_key(raw))
    assert key.revoked_at is None
    assert key.terminal.name == terminal
    assert key.terminal.client.name == client
    assert key.terminal.integration_type == integration
    assert key.terminal.form_activated is form
    assert key.terminal.webhook_secret == SECRET
    assert key.terminal.webhook_urls == []
    assert key.terminal.currency == "RUB"
    assert key.terminal.balance.available == Decimal(available)
    assert key.terminal.balance.frozen == Decimal("0.00")


def test_demo_shop_starts_with_one_initial_deposit_and_a_revoked_key(demo):
    deposit = Transaction.objects.get(balance__terminal=demo.shop)
    assert (deposit.transaction_type, deposit.amount) == ("deposit", Decimal("100000.00"))
    assert deposit.client_description == "Initial deposit"
    revoked = ApiKey.objects.get(key_hash=hash_key("demo-revoked-key"))
    assert revoked.terminal == demo.shop and revoked.revoked_at is not None


@pytest.mark.parametrize(
    ("name", "method_type", "nspk", "active", "buy", "sell"),
    [
        ("SBP", "SBP", None, True, ("100", "300000", "5", "0"), None),
        ("Sberbank SBP", "SBP", "100000000111", True, ("100", "300000", "5", "0"), "sbp-sell"),
        ("T-Bank SBP", "SBP", "100000000004", True, ("100", "300000", "5", "0"), "sbp-sell"),
        ("Alfa-Bank SBP", "SBP", "100000000008", True, ("100", "300000", "5", "0"), "sbp-sell"),
        ("VTB SBP", "SBP", "100000000005", True, ("100", "300000", "5", "0"), "sbp-sell"),
        (
            "Bank card",
            "BankCard",
            None,
            True,
            ("500", "150000", "6", "0"),
            ("1000", "150000", "4", "100"),
        ),
        ("Ozon Bank SBP", "SBP", "100000000273", True, ("100", "300000", "5", "0"), None),
        ("Legacy card", "BankCard", None, False, ("500", "150000", "6", "0"), None),
    ],
)
def test_methods_and_fee_ranges(demo, name, method_type, nspk, active, buy, sell):
    if sell == "sbp-sell":
        sell = ("500", "100000", "3", "50")
    method = demo.methods[name]
    assert (method.method_type, method.nspk_code, method.is_active) == (method_type, nspk, active)
    assert method.is_aggregate is (name == "SBP")
    ranges = {r.side: (r.min_amount, r.max_amount, r.fee, r.fixed_fee) for r in method.ranges.all()}
    assert ranges.get("Buy") == tuple(Decimal(v) for v in buy)
    assert ranges.get("Sell") == (tuple(Decimal(v) for v in sell) if sell else None)
    # Every method is enabled on every terminal.
    assert TerminalMethod.objects.filter(method=method, enabled=True).count() == 4


@pytest.mark.parametrize(
    ("terminal", "buttons"),
    [
        (
            "Demo Shop",
            {"SberPay": "Sberbank SBP", "TPay": "T-Bank SBP", "AlfaPay": "Alfa-Bank SBP"},
        ),
        (
            "Form Shop",
            {
                "SberPay": "Sberbank SBP",
                "TPay": "T-Bank SBP",
                "AlfaPay": "Alfa-Bank SBP",
                "VTBPay": "VTB SBP",
            },
        ),
        ("Closed Shop", {}),
        (
            "Sandbox Shop",
            {
                "SberPay": "Sberbank SBP",
                "TPay": "T-Bank SBP",
                "AlfaPay": "Alfa-Bank SBP",
                "VTBPay": "VTB SBP",
            },
        ),
    ],
)
def test_buttons(demo, terminal, buttons):
    rows = TerminalMethod.objects.filter(terminal__name=terminal, button_name__isnull=False)
    assert {row.button_name: row.method.name for row in rows} == buttons


def test_traders_hold_two_requisites_per_bank_method_with_distinct_traders(demo):
    assert [t.name for t in demo.traders] == [
        "Trader One",
        "Trader Two",
        "Trader Three",
        "Trader Four",
    ]
    for index in (1, 2, 3):
        key = TraderApiKey.objects.get(key_hash=hash_key(f"demo-trader-{index}-key"))
        assert key.revoked_at is None and key.trader.is_active
    for name in BANK_METHODS:
        requisites = list(
            Requisite.objects.filter(method__name=name, is_active=True, trader__sandbox=False)
        )
        assert len(requisites) == 2
        assert len({r.trader_id for r in requisites}) == 2
        for requisite in requisites:
            assert requisite.daily_limit == Decimal(100_000_000)
            if name == "Bank card":
                assert requisite.account.startswith("2200") and luhn_ok(requisite.account)
            else:
                assert requisite.account.startswith("+7999000") and len(requisite.account) == 12
    assert not Requisite.objects.filter(method__name__in=["SBP", "Ozon Bank SBP"]).exists()


def test_sandbox_shop_is_the_only_sandbox_terminal_with_one_initial_deposit(demo):
    assert list(Terminal.objects.filter(sandbox=True)) == [demo.sandbox_shop]
    assert demo.sandbox_shop.livemode is False and demo.shop.livemode is True
    deposit = Transaction.objects.get(balance__terminal=demo.sandbox_shop)
    assert (deposit.transaction_type, deposit.amount) == ("deposit", Decimal("100000.00"))
    assert deposit.client_description == "Initial deposit"


def test_the_sandbox_trader_holds_two_requisites_per_bank_method_and_no_live_one(demo):
    key = TraderApiKey.objects.select_related("trader").get(
        key_hash=hash_key("demo-sandbox-trader-key")
    )
    sandbox_trader = key.trader
    assert key.revoked_at is None
    assert sandbox_trader.sandbox and sandbox_trader.is_active
    assert list(Trader.objects.filter(sandbox=True)) == [sandbox_trader]
    for name in BANK_METHODS:
        requisites = Requisite.objects.filter(method__name=name, trader=sandbox_trader)
        assert requisites.filter(is_active=True).count() == 2
        # Distinct accounts, none shared with a live trader's requisite.
        accounts = set(requisites.values_list("account", flat=True))
        assert len(accounts) == 2
        live = Requisite.objects.filter(method__name=name, trader__sandbox=False)
        assert not live.filter(account__in=accounts).exists()
    assert set(
        Requisite.objects.filter(trader=sandbox_trader).values_list("method__name", flat=True)
    ) == {*BANK_METHODS, "MTS Bank SBP"}


def test_blacklist(demo):
    assert set(BlacklistedAccount.objects.values_list("account", flat=True)) == {
        "2200000000000665",
        "+79990006666",
    }


def test_operator_can_sign_in_to_the_admin(demo, client):
    operator = get_user_model().objects.get(username="operator")
    assert operator.is_active and operator.is_staff
    assert client.login(username="operator", password="operator-demo-password")
    assert client.get("/admin/").status_code == 200


def test_the_books_demo_data_is_as_traders_md_22_lists(demo):
    from django.contrib.auth import authenticate

    from finance.models import Balance, FeeRange

    deposits = {
        trader.name: [
            (t.transaction_type, t.amount, t.client_description)
            for t in Transaction.objects.filter(balance__trader_id=trader.pk)
        ]
        for trader in Trader.objects.all()
    }
    initial = [("deposit", Decimal("100000000.00"), "Initial deposit")]
    assert deposits == {
        "Trader One": initial,
        "Trader Two": initial,
        "Trader Three": initial,
        "Sandbox Trader": initial,
        "Trader Four": [("deposit", Decimal("1000.00"), "Initial deposit")],
    }
    assert Balance.objects.get(trader_id=demo.traders[3].pk).available == Decimal("1000.00")
    rewards = set(FeeRange.objects.values_list("side", "trader_reward_percent"))
    assert rewards == {("Buy", Decimal("2.50")), ("Sell", Decimal("1.50"))}
    mts = PaymentMethod.objects.get(name="MTS Bank SBP")
    assert (mts.method_type, mts.nspk_code, mts.name_ru) == (
        "SBP",
        "100000000017",
        "МТС Банк (СБП)",
    )
    assert [(r.side, r.min_amount, r.max_amount, r.fee) for r in mts.ranges.all()] == [
        ("Buy", Decimal("100.00"), Decimal("300000.00"), Decimal("5.00"))
    ]
    assert TerminalMethod.objects.filter(method=mts, enabled=True).count() == 4
    trader_4 = TraderApiKey.objects.get(key_hash=hash_key("demo-trader-4-key")).trader
    (live,) = Requisite.objects.filter(method=mts, trader__sandbox=False)
    assert live.trader == trader_4 and not trader_4.sandbox
    assert (live.min_amount, live.max_amount, live.auto_disable_after) == (
        Decimal("100.00"),
        Decimal("600.00"),
        3,
    )
    assert Requisite.objects.filter(method=mts, trader__sandbox=True).count() == 2
    operator2 = authenticate(username="operator2", password="operator-demo-password")
    assert operator2 is not None and operator2.is_staff and not operator2.is_superuser
    assert list(operator2.groups.values_list("name", flat=True)) == ["Operators"]
