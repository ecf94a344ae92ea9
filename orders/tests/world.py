"""A test's own world: one terminal with the payment methods a test names, each held
by as many traders' requisites as it asks for. Built with the factories, in one line:

    world = World.build({"Sberbank SBP": 2, "Ozon Bank SBP": 0}, available="100000.00")

gives a terminal (`world.shop`, X-API-Key client `world.api`) with two methods enabled,
two traders holding a requisite on Sberbank SBP and none on Ozon Bank SBP, and
100000.00 deposited. The methods are built from KINDS below, which state the same
limits and fees as the demo data set's methods of those names, so the API's bodies
(`buy_body(world)`, `sell_body(world)` of demo.testing take a world as well as the
demo) read the same. `trader_for(order)` is the API client of the trader who
holds an order's requisite.
"""

from dataclasses import dataclass, field

from core.testing import ApiClient
from finance.models import BlacklistedAccount, MethodType
from finance.tests.factories import CardMethodFactory, PaymentMethodFactory, TerminalFactory
from orders.tests.factories import RequisiteFactory, TraderFactory

CARD_BUY = ("500", "150000", "6", "0")
CARD_SELL = ("1000", "150000", "4", "100")

# name -> factory fields (SBP: buy 100..300000 at 5 %, sell 500..100000 at 3 % + 50)
KINDS = {
    "SBP": {"is_aggregate": True, "nspk_code": None, "sell": False},
    "Sberbank SBP": {
        "nspk_code": "100000000111",
        "bank_slug": "sberbank",
        "deeplink_template": "https://www.sberbank.com/sms/pbpn?requisiteNumber={account}&amount={amount}",
    },
    "T-Bank SBP": {"nspk_code": "100000000004", "bank_slug": "tinkoff"},
    "Alfa-Bank SBP": {"nspk_code": "100000000008", "bank_slug": "alfabank"},
    "VTB SBP": {"nspk_code": "100000000005", "bank_slug": "vtb"},
    "Ozon Bank SBP": {"nspk_code": "100000000273", "sell": False},
    "MTS Bank SBP": {"nspk_code": "100000000017", "sell": False},
    "Bank card": {"method_type": MethodType.BANK_CARD, "buy": CARD_BUY, "sell": CARD_SELL},
    "Legacy card": {
        "method_type": MethodType.BANK_CARD,
        "is_active": False,
        "buy": CARD_BUY,
        "sell": False,
    },
}

# The demo set's blacklist: a card and a phone.
BLACKLISTED = ("2200000000000665", "+79990006666")


def method_build(name: str):
    fields = dict(KINDS[name])
    if fields.get("method_type") == MethodType.BANK_CARD:
        return CardMethodFactory(name=name, **fields)
    return PaymentMethodFactory(name=name, **fields)


@dataclass(eq=False)
class World:
    shop: object
    api: ApiClient
    methods: dict = field(default_factory=dict)
    requisites: list = field(default_factory=list)

    @classmethod
    def build(
        cls, holders: dict[str, int], *, traders: int = 0, blacklist: bool = False, **terminal
    ) -> "World":
        """`holders`: method name -> number of requisites on it, each held by its own
        trader unless `traders` (a pool of that many traders, taken in turn) is given."""
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
        shop = TerminalFactory(methods=list(methods.values()), **terminal)
        return cls(shop=shop, api=ApiClient(shop.raw_key), methods=methods, requisites=requisites)

    def method_id(self, name: str) -> str:
        return str(self.methods[name].pk)

    def other_terminal(self, **fields) -> ApiClient:
        """A second merchant's terminal with the same methods enabled."""
        other = TerminalFactory(methods=list(self.methods.values()), **fields)
        return ApiClient(other.raw_key)


def trader_for(order: dict) -> ApiClient:
    """The client of the trader who holds the order's requisite (a TraderFactory key)."""
    from orders.models import Order

    trader = Order.objects.select_related("trader").get(pk=order["id"]).trader
    return ApiClient(f"trader-key-{trader.pk}")
