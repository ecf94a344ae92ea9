"""The books' part of the demo data (traders.md §22): the traders' deposits, the
rewards, trader 4 with its MTS Bank SBP requisite, and a second operator."""

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from core import memo
from core.keys import hash_key
from finance.models import Balance, FeeRange, Side
from finance.services import balance_credit
from orders.models import Requisite, Trader, TraderApiKey
from orders.services import trader_key_issue

DEPOSIT = Decimal("100000000.00")
DEPOSITS = {
    "Trader One": DEPOSIT,
    "Trader Two": DEPOSIT,
    "Trader Three": DEPOSIT,
    "Sandbox Trader": DEPOSIT,
    "Trader Four": Decimal("1000.00"),
}
REWARDS = {Side.BUY: Decimal("2.5"), Side.SELL: Decimal("1.5")}
TRADER_4 = ("Trader Four", "demo-trader-4-key")
TRADER_4_REQUISITE = {
    "account": "+79990041001",
    "holder_name": "Pavel M.",
    "min_amount": Decimal(100),
    "max_amount": Decimal(600),
    "auto_disable_after": 3,
}
OPERATOR_2 = ("operator2", "operator2@example.com", "operator-demo-password")


def seed_books(methods: dict) -> None:
    for side, percent in REWARDS.items():
        FeeRange.objects.filter(side=side).update(trader_reward_percent=percent)
    memo.changed()  # an update() sends no post_save
    _trader_4(methods["MTS Bank SBP"])
    for name, amount in DEPOSITS.items():
        trader = Trader.objects.get(name=name)
        if not Balance.objects.filter(trader_id=trader.pk, transactions__isnull=False).exists():
            balance_credit(trader_id=trader.pk, amount=amount, description="Initial deposit")
    _operator_2()


def _trader_4(method) -> None:
    name, raw = TRADER_4
    trader, _ = Trader.objects.get_or_create(name=name)
    if not TraderApiKey.objects.filter(key_hash=hash_key(raw)).exists():
        trader_key_issue(trader=trader, name="demo", raw=raw)
    fields = dict(TRADER_4_REQUISITE)
    account = fields.pop("account")
    fields["daily_limit"] = Decimal(100_000_000)
    Requisite.objects.get_or_create(trader=trader, method=method, account=account, defaults=fields)


def _operator_2() -> None:
    username, email, password = OPERATOR_2
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User.objects.create_user(username, email, password)
    user.is_staff, user.is_superuser = True, False
    user.save(update_fields=["is_staff", "is_superuser"])
    user.groups.set(Group.objects.filter(name="Operators"))
