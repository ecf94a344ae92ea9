"""A test's own world: one terminal with the payment methods a test names, each held
by as many traders' requisites as it asks for. Built with the factories, in one line:

    world = World.build({"Sberbank SBP": 2, "Ozon Bank SBP": 0}, available="100000.00")

gives a terminal (`world.shop`, X-API-Key client `world.api`) with two methods enabled,
two traders holding a requisite on Sberbank SBP and none on Ozon Bank SBP, and
100000.00 deposited. A method is made as the demo data set defines its name (limits,
fees, hints, deeplink: seed_demo.METHODS), so tests read the same figures either way
and `buy_body(world)`, `sell_body(world)` of demo.testing take a world as well as the
demo. `trader_for(order)` is the API client of the trader who
holds an order's requisite.
"""

from dataclasses import dataclass, field

from core.testing import ApiClient
from demo.books_seed import REWARDS
from demo.management.commands import seed_demo
from finance.models import BlacklistedAccount, MethodType, Side, TerminalMethod
from finance.tests.factories import CardMethodFactory, PaymentMethodFactory, TerminalFactory
from orders.tests.factories import RequisiteFactory, TraderFactory

# name -> (type, nspk code, active, aggregate, bank slug, buy range, sell range, deeplink)
DEMO_METHODS = {row[0]: row[1:] for row in seed_demo.METHODS}

# The demo set's blacklist: a card and a phone.
BLACKLISTED = ("2200000000000665", "+79990006666")


def method_build(name: str):
    """A payment method as the demo data set defines `name`: its type, NSPK code, limits
    and fees (e.g. SBP banks: Buy 100..300000 at 5 %, Sell 500..100000 at 3 % + 50),
    traders' rewards (Buy 2.5 %, Sell 1.5 %), deeplink, hints and Russian name."""
    mtype, nspk, active, aggregate, slug, buy, sell, deeplink = DEMO_METHODS[name]
    hint_ru, hint_en = seed_demo.HINTS.get(name, ("", ""))
    factory = CardMethodFactory if mtype == MethodType.BANK_CARD else PaymentMethodFactory
    return factory(
        name=name,
        name_ru=seed_demo.NAMES_RU.get(name, ""),
        method_type=mtype,
        nspk_code=nspk,
        is_active=active,
        is_aggregate=aggregate,
        bank_slug=slug,
        deeplink_template=deeplink,
        hint_ru=hint_ru,
        hint_en=hint_en,
        buy=(*buy, REWARDS[Side.BUY]) if buy else False,
        sell=(*sell, REWARDS[Side.SELL]) if sell else False,
    )


@dataclass(eq=False)
class World:
    shop: object
    api: ApiClient
    methods: dict = field(default_factory=dict)
    requisites: list = field(default_factory=list)
    sandbox_trader: object = None

    @classmethod
    def build(
        cls,
        holders: dict[str, int],
        *,
        traders: int = 0,
        blacklist: bool = False,
        buttons: dict[str, str] | None = None,
        sandbox_holders: dict[str, int] | None = None,
        **terminal,
    ) -> "World":
        """`holders`: method name -> number of requisites on it, each held by its own
        trader unless `traders` (a pool of that many traders, taken in turn) is given.
        `buttons`: the terminal's payment buttons, button name -> method name.
        `sandbox_holders`: method name -> requisites of one sandbox trader on it."""
        pool = [TraderFactory() for _ in range(traders)]
        methods = {name: method_build(name) for name in holders}
        requisites = []
        turn = 0
        for name, count in holders.items():
            for _ in range(count):
                extra = {"trader": pool[turn % len(pool)]} if pool else {}
                requisites.append(RequisiteFactory(method=methods[name], **extra))
                turn += 1
        if blacklist:
            for account in BLACKLISTED:
                BlacklistedAccount.objects.create(account=account, comment="Test blacklist")
        world = cls(shop=None, api=None, methods=methods, requisites=requisites)
        if sandbox_holders:
            world.sandbox_trader = TraderFactory(sandbox=True, name="Sandbox Trader")
            for name, count in sandbox_holders.items():
                for _ in range(count):
                    RequisiteFactory(method=methods[name], trader=world.sandbox_trader)
        world.shop = world.terminal(buttons=buttons, **terminal)
        world.api = ApiClient(world.shop.raw_key)
        return world

    def method_id(self, name: str) -> str:
        return str(self.methods[name].pk)

    def terminal(self, *, buttons: dict[str, str] | None = None, **fields):
        """A merchant's terminal with the world's methods enabled (key: `.raw_key`)."""
        terminal = TerminalFactory(methods=list(self.methods.values()), **fields)
        for button, name in (buttons or {}).items():
            enabled = TerminalMethod.objects.get(terminal=terminal, method=self.methods[name])
            enabled.button_name = button
            enabled.save(update_fields=["button_name"])  # saved: kept rows notice it
        return terminal

    def other_terminal(self, **fields) -> ApiClient:
        """The API as a second merchant's terminal with the same methods enabled sees it
        (the terminal: `.terminal`)."""
        terminal = self.terminal(**fields)
        api = ApiClient(terminal.raw_key)
        api.terminal = terminal
        return api


def trader_for(order: dict) -> ApiClient:
    """The client of the trader who holds the order's requisite (a TraderFactory key)."""
    from orders.models import Order

    trader = Order.objects.select_related("trader").get(pk=order["id"]).trader
    return ApiClient(f"trader-key-{trader.pk}")
