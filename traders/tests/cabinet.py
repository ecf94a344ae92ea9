"""A trader with a cabinet user, one requisite and a terminal that sends it orders,
for the cabinet's page tests."""

from types import SimpleNamespace

from django.contrib.auth import get_user_model
from django.test import Client

from finance.tests.factories import CardMethodFactory, PaymentMethodFactory, TerminalFactory
from orders.tests.factories import RequisiteFactory, TraderFactory

PASSWORD = "trader-test-password"


def make_cabinet(name="cab"):
    method = PaymentMethodFactory(name=f"{name} Bank SBP")
    card = CardMethodFactory(name=f"{name} card")
    terminal = TerminalFactory(available="10000000.00", methods=[method, card])
    user = get_user_model().objects.create_user(name, password=PASSWORD)
    trader = TraderFactory(name=f"Trader {name}", user=user)
    requisite = RequisiteFactory(method=method, trader=trader, account="+79990001122")
    card_requisite = RequisiteFactory(method=card, trader=trader, account="4111111111111111")
    client = Client()
    client.force_login(user)
    return SimpleNamespace(
        method=method,
        card=card,
        terminal=terminal,
        user=user,
        trader=trader,
        requisite=requisite,
        card_requisite=card_requisite,
        client=client,
    )
