"""A small world of its own for a test: one terminal with one bank method, one trader
holding a requisite on it. `World.build(**terminal_fields)`; `world.buy(...)` creates a
Buy through the API as the terminal, `world.trader` confirms it. What the demo data set
gives end-to-end tests, built per test with the factories."""

from dataclasses import dataclass
from functools import cached_property

from core.testing import ApiClient
from finance.tests.factories import TerminalFactory
from orders.tests.factories import RequisiteFactory


@dataclass(eq=False)
class World:
    terminal: object
    method: object
    requisite: object
    shop: ApiClient
    trader: ApiClient

    @classmethod
    def build(cls, **terminal_fields) -> "World":
        requisite = RequisiteFactory()
        terminal = TerminalFactory(methods=[requisite.method], **terminal_fields)
        return cls(
            terminal=terminal,
            method=requisite.method,
            requisite=requisite,
            shop=ApiClient(terminal.raw_key),
            trader=ApiClient(requisite.trader.raw_key),
        )

    def buy_body(self, amount="1000.00", **extra) -> dict:
        return {
            "client_order_id": extra.pop("client_order_id", "order-1"),
            "order_side": "Buy",
            "payment_method_id": str(self.method.pk),
            "amount": amount,
            **extra,
        }

    def buy(self, **extra) -> dict:
        response = self.shop.post("/api/v1/order/", self.buy_body(**extra))
        assert response.status_code == 201, response.content
        return response.json()

    def confirm(self, order: dict):
        return self.trader.post(f"/api/v1/trader/orders/{order['id']}/confirm")

    @cached_property
    def other(self):
        """A second merchant's terminal on the same method."""
        return TerminalFactory(methods=[self.method])

    def another_terminal(self) -> ApiClient:
        return ApiClient(self.other.raw_key)
