"""The three-sided books against a model of them: random Buys and Sells, confirms with
other paid amounts, cancels, expiries, settlements and merchants' withdrawals, each
predicted by the model (who may take a Buy, what each side gets) and checked against
the database after every step, with `check_ledger` finding nothing.

The method charges 5 % on a Buy, 3 % + 50.00 on a Sell; the trader's reward is 2.5 %
of a Buy's paid amount and 1.5 % of a Sell's amount.
"""

from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from core.errors import InsufficientFunds, InvalidRequest, NoAvailableTraders
from finance.models import AccountKind, Balance
from finance.services import ledger_check
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.services import order_cancel, order_confirm, order_expire_now
from orders.tests.factories import RequisiteFactory, TraderFactory, buy_order, sell_order
from settlements.services import settlement_decide, settlement_enter, withdrawal_request

pytestmark = pytest.mark.django_db
CENT = Decimal("0.01")


def pct(amount: Decimal, rate: str) -> Decimal:
    return (amount * Decimal(rate) / 100).quantize(CENT, rounding=ROUND_HALF_UP)


class Books(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.method = PaymentMethodFactory()
        for fee_range in self.method.ranges.all():
            fee_range.trader_reward_percent = Decimal("2.5" if fee_range.side == "Buy" else "1.5")
            fee_range.save()
        self.shop = TerminalFactory(available="20000.00", methods=[self.method])
        self.merchant = [Decimal("20000.00"), Decimal(0)]  # available, frozen
        self.traders = {}
        self.requisites = {}  # trader id -> number of requisites
        for deposit, count in (("2000.00", 2), ("800.00", 1), ("0", 1)):
            trader = TraderFactory(deposit=deposit)
            self.traders[trader.pk] = [Decimal(deposit), Decimal(0)]
            self.requisites[trader.pk] = count
            for _ in range(count):
                RequisiteFactory(trader=trader, method=self.method)
        self.platform = self._platform_now()
        self.pending = {}  # order id -> order
        self.waiting = []  # settlements awaiting a decision
        User = get_user_model()
        self.op1, _ = User.objects.get_or_create(username="books-op1")
        self.op2, _ = User.objects.get_or_create(username="books-op2")

    def _platform_now(self) -> Decimal:
        row = Balance.objects.filter(kind=AccountKind.PLATFORM, sandbox=False).first()
        return row.available if row else Decimal(0)

    def _held(self, trader_id, amount) -> int:
        return sum(
            1
            for o in self.pending.values()
            if o.side == "Buy" and o.trader_id == trader_id and o.amount == amount
        )

    @rule(amount=st.sampled_from(["100.00", "250.00", "530.00", "799.99", "1200.00"]))
    def buy(self, amount):
        amount = Decimal(amount)
        try:
            order = buy_order(terminal=self.shop, method=self.method, amount=amount)
        except NoAvailableTraders:
            for trader_id, (available, _) in self.traders.items():
                free = self._held(trader_id, amount) < self.requisites[trader_id]
                assert not (available >= amount and free), "a trader could have taken it"
            return
        held = self.traders[order.trader_id]
        assert held[0] >= amount, "matched to a trader whose deposit does not cover it"
        held[0] -= amount
        held[1] += amount
        self.pending[order.pk] = order

    @rule(amount=st.sampled_from(["500.00", "1000.00", "4321.09"]))
    def sell(self, amount):
        amount = Decimal(amount)
        reserve = amount + pct(amount, "3") + Decimal(50)
        try:
            order = sell_order(terminal=self.shop, method=self.method, amount=amount)
        except InsufficientFunds:
            assert self.merchant[0] < reserve
            return
        self.merchant[0] -= reserve
        self.merchant[1] += reserve
        self.pending[order.pk] = order

    def _pick(self, data):
        return data.draw(st.sampled_from(sorted(self.pending, key=str)))

    @rule(data=st.data(), shift=st.sampled_from(["0", "-30.00", "12.34", "250.00"]))
    def confirm(self, data, shift):
        if not self.pending:
            return
        order = self.pending[self._pick(data)]
        trader = self.traders[order.trader_id]
        if order.side == "Sell":
            order_confirm(order_id=order.pk, actor="model")
            fee = order.fee_amount
            reward = pct(order.amount, "1.5")
            self.merchant[1] -= order.amount + fee
            trader[0] += order.amount + reward
        else:
            paid = order.amount + Decimal(shift)
            if paid > 2 * order.amount:
                with pytest.raises(InvalidRequest):
                    order_confirm(order_id=order.pk, actor="model", paid_amount=paid)
                return
            if trader[0] + order.amount < paid:
                with pytest.raises(InsufficientFunds):
                    order_confirm(order_id=order.pk, actor="model", paid_amount=paid)
                return
            done = order_confirm(order_id=order.pk, actor="model", paid_amount=paid)
            fee, reward = pct(paid, "5"), pct(paid, "2.5")
            assert (done.fee_amount, done.trader_reward) == (fee, reward)
            self.merchant[0] += paid - fee
            trader[1] -= order.amount
            trader[0] += order.amount - paid + reward
        self.platform += fee - reward
        del self.pending[order.pk]

    @rule(data=st.data(), expire=st.booleans())
    def close(self, data, expire):
        if not self.pending:
            return
        order = self.pending.pop(self._pick(data))
        (order_expire_now if expire else order_cancel)(order_id=order.pk, actor="model")
        if order.side == "Buy":
            self.traders[order.trader_id][0] += order.amount
            self.traders[order.trader_id][1] -= order.amount
        else:
            frozen = order.amount + order.fee_amount
            self.merchant[0] += frozen
            self.merchant[1] -= frozen

    @rule(data=st.data(), amount=st.sampled_from(["100.00", "900.00", "3000.00"]))
    def enter_trader_settlement(self, data, amount):
        amount = Decimal(amount)
        trader_id = data.draw(st.sampled_from(sorted(self.traders, key=str)))
        kind = data.draw(st.sampled_from(["trader_deposit", "trader_withdrawal"]))
        account = self.traders[trader_id]
        try:
            s = settlement_enter(kind=kind, account=trader_id, amount=amount, operator=self.op1)
        except InsufficientFunds:
            assert kind == "trader_withdrawal" and account[0] < amount
            return
        if kind == "trader_withdrawal":
            account[0] -= amount
            account[1] += amount
        self.waiting.append((s, account))

    @rule(amount=st.sampled_from(["100.00", "5000.00", "30000.00"]))
    def merchant_withdrawal(self, amount):
        amount = Decimal(amount)
        try:
            s = withdrawal_request(terminal=self.shop, amount=amount, destination="bank")
        except InsufficientFunds:
            assert self.merchant[0] < amount
            return
        self.merchant[0] -= amount
        self.merchant[1] += amount
        self.waiting.append((s, self.merchant))

    @rule(data=st.data(), approve=st.booleans())
    def decide(self, data, approve):
        if not self.waiting:
            return
        s, account = self.waiting.pop(data.draw(st.integers(0, len(self.waiting) - 1)))
        settlement_decide(settlement_id=s.pk, approve=approve, operator=self.op2)
        withdrawal = s.kind.endswith("withdrawal")
        if withdrawal:
            account[1] -= s.amount
            if not approve:
                account[0] += s.amount
        elif approve:
            account[0] += s.amount

    @invariant()
    def books_agree(self):
        shop = Balance.objects.get(terminal=self.shop)
        assert [shop.available, shop.frozen] == self.merchant
        for trader_id, expected in self.traders.items():
            row = Balance.objects.filter(trader_id=trader_id).first()
            got = [row.available, row.frozen] if row else [Decimal(0), Decimal(0)]
            assert got == expected, trader_id
        assert self._platform_now() == self.platform
        assert ledger_check() == []


def test_the_books_agree_with_their_model():
    run_state_machine_as_test(
        Books,
        settings=settings(
            max_examples=5,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
