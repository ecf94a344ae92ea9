"""Fixtures shared by every app's tests: the demo data set and an HTTP client that
speaks to the API with a key, the way merchants and traders do."""

import json
from dataclasses import dataclass, field
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.test import Client


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
        traders=list(Trader.objects.filter(sandbox=False).order_by("name")),
    )


@pytest.fixture
def demo(db) -> Demo:
    return load_demo()


class ApiClient:
    """Django's test client with an X-API-Key and JSON bodies."""

    def __init__(self, key: str | None):
        self.key = key
        self.http = Client()

    def _headers(self, headers):
        out = dict(headers or {})
        if self.key is not None:
            out.setdefault("X-API-Key", self.key)
        return out

    def get(self, path, params=None, headers=None):
        return self.http.get(path, params or {}, headers=self._headers(headers))

    def post(self, path, body=None, headers=None, raw: bytes | str | None = None):
        data = raw if raw is not None else json.dumps(body if body is not None else {}, default=str)
        return self.http.post(
            path, data, content_type="application/json", headers=self._headers(headers)
        )

    def post_multipart(self, path, data, headers=None):
        return self.http.post(path, data, headers=self._headers(headers))

    def request(self, method, path, headers=None, **kwargs):
        return getattr(self.http, method.lower())(path, headers=self._headers(headers), **kwargs)


@pytest.fixture
def shop(demo) -> ApiClient:
    return ApiClient("demo-shop-key")


@pytest.fixture
def form_shop(demo) -> ApiClient:
    return ApiClient("demo-form-key")


@pytest.fixture
def closed_shop(demo) -> ApiClient:
    return ApiClient("demo-closed-key")


@pytest.fixture
def traders(demo) -> list[ApiClient]:
    return [ApiClient(f"demo-trader-{i}-key") for i in (1, 2, 3)]


@pytest.fixture
def anonymous() -> ApiClient:
    return ApiClient(None)


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
    index = {"Trader One": 1, "Trader Two": 2, "Trader Three": 3}[trader_name]
    return ApiClient(f"demo-trader-{index}-key")


def money(value) -> Decimal:
    return Decimal(str(value))


@pytest.fixture
def demo_transactional(transactional_db) -> Demo:
    return load_demo()
