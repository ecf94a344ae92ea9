"""The demo data set for tests that exercise the whole service at once (the browser
tests, end-to-end flows): load it and find its rows. Most tests build only what they
need with the factories in finance/tests and orders/tests instead."""

from dataclasses import dataclass, field

from django.core.management import call_command

from core.testing import ApiClient


@dataclass
class Demo:
    shop: object
    form_shop: object
    closed_shop: object
    sandbox_shop: object
    methods: dict = field(default_factory=dict)
    traders: list = field(default_factory=list)

    def method_id(self, name: str) -> str:
        return str(self.methods[name].pk)


def load_demo() -> Demo:
    from finance.models import PaymentMethod, Terminal
    from orders.models import Trader

    call_command("seed_demo", force=True, verbosity=0)
    return Demo(
        shop=Terminal.objects.get(name="Demo Shop"),
        form_shop=Terminal.objects.get(name="Form Shop"),
        closed_shop=Terminal.objects.get(name="Closed Shop"),
        sandbox_shop=Terminal.objects.get(name="Sandbox Shop"),
        methods={m.name: m for m in PaymentMethod.objects.all()},
        # Traders One to Four, in the order the seeding made them
        traders=list(Trader.objects.filter(sandbox=False).order_by("created_at", "name")),
    )


def buy_body(demo: Demo, method: str = "Sberbank SBP", amount="1000.00", **extra) -> dict:
    body = {
        "client_order_id": extra.pop("client_order_id", "order-1"),
        "order_side": "Buy",
        "payment_method_id": demo.method_id(method),
        "amount": amount,
    }
    body.update(extra)
    return body


def sell_body(
    demo: Demo, method: str = "Sberbank SBP", amount="1000.00", account="+79991234567", **extra
) -> dict:
    body = {
        "client_order_id": extra.pop("client_order_id", "sell-1"),
        "order_side": "Sell",
        "payment_method_id": demo.method_id(method),
        "amount": amount,
        "customer_account": account,
    }
    body.update(extra)
    return body


def trader_for(order: dict) -> ApiClient:
    """The client of the trader who holds the order's requisite."""
    from orders.models import Order

    trader_name = Order.objects.select_related("trader").get(pk=order["id"]).trader.name
    index = {"Trader One": 1, "Trader Two": 2, "Trader Three": 3, "Trader Four": 4}[trader_name]
    return ApiClient(f"demo-trader-{index}-key")
