"""A requisite switches itself off after `auto_disable_after` orders in a row ended
Expired by the clock; another close ends the run, a sandbox simulation is not seen,
and its trader or an operator switches it back on, which starts the count again."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from conftest import ApiClient
from core.errors import NoAvailableTraders
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import Requisite, RequisiteLoad
from orders.services import order_cancel, order_confirm, order_expire_due, order_simulate
from orders.services.requisite_state import requisite_switch
from orders.tests.clock import orders_age
from orders.tests.factories import RequisiteFactory, TraderFactory, buy_order

pytestmark = pytest.mark.django_db


def _desk(*, sandbox=False, after=2):
    method = PaymentMethodFactory()
    terminal = TerminalFactory(methods=[method], sandbox=sandbox)
    trader = TraderFactory(sandbox=sandbox)
    requisite = RequisiteFactory(method=method, trader=trader, auto_disable_after=after)
    return method, terminal, requisite


def _expire_by_clock(terminal, method, amount="1000.00"):
    order = buy_order(terminal=terminal, method=method, amount=amount)
    orders_age(timedelta(hours=1), pk=order.pk)
    assert order_expire_due(terminal_id=terminal.pk) == 1
    return order


def _state(requisite):
    requisite.refresh_from_db()
    return requisite.is_active, requisite.disabled_reason, requisite.expired_in_a_row


def test_off_after_n_expiries_in_a_row_and_on_again_by_its_trader():
    method, terminal, requisite = _desk(after=2)
    _expire_by_clock(terminal, method)
    assert _state(requisite) == (True, None, 1)
    _expire_by_clock(terminal, method)
    assert _state(requisite) == (False, "auto_expired", 2)
    with pytest.raises(NoAvailableTraders):
        buy_order(terminal=terminal, method=method)

    api = ApiClient(f"trader-key-{requisite.trader_id}")  # the factory's key
    shown = api.get("/api/v1/trader/requisites").json()["requisites"][0]
    assert shown["is_active"] is False and shown["disabled_reason"] == "auto_expired"
    assert api.post(f"/api/v1/trader/requisites/{requisite.pk}/enable").status_code == 200
    assert _state(requisite) == (True, None, 0)
    _expire_by_clock(terminal, method)
    assert _state(requisite) == (True, None, 1)  # the count started again


def test_an_operator_switches_it_back_on():
    method, terminal, requisite = _desk(after=1)
    _expire_by_clock(terminal, method)
    assert _state(requisite) == (False, "auto_expired", 1)
    requisite_switch(requisite_id=requisite.pk, on=True, by_operator=True)
    assert _state(requisite) == (True, None, 0)


def test_a_close_that_is_not_an_expiry_ends_the_run():
    method, terminal, requisite = _desk(after=2)
    _expire_by_clock(terminal, method)
    cancelled = buy_order(terminal=terminal, method=method)
    order_cancel(order_id=cancelled.pk, actor="trader:x")
    assert _state(requisite) == (True, None, 0)
    _expire_by_clock(terminal, method)
    assert _state(requisite) == (True, None, 1)


def test_a_completion_ends_the_run_with_the_requisites_figures():
    """On PostgreSQL in one statement: the requisite's run of expiries ends in the
    same UPDATE that moves its figures (one round trip fewer on every close)."""
    method, terminal, requisite = _desk(after=3)
    _expire_by_clock(terminal, method)
    paid = buy_order(terminal=terminal, method=method)
    assert RequisiteLoad.objects.get(requisite=requisite).pending == 1
    with CaptureQueriesContext(connection) as captured:
        order_confirm(order_id=paid.pk, actor="trader:x")
    assert _state(requisite) == (True, None, 0)
    assert RequisiteLoad.objects.get(requisite=requisite).pending == 0
    statements = [q["sql"] for q in captured.captured_queries]
    run_ended = [q for q in statements if "SET expired_in_a_row = 0" in q]
    assert len(run_ended) == 1
    moved = [q for q in statements if "UPDATE orders_requisiteload" in q]
    assert len(moved) == 1
    if connection.vendor == "postgresql":
        assert run_ended == moved


def test_without_auto_disable_after_it_stays_on():
    method, terminal, requisite = _desk(after=None)
    for amount in ("1000.00", "1100.00", "1200.00"):
        _expire_by_clock(terminal, method, amount)
    assert _state(requisite) == (True, None, 3)


def test_sandbox_simulations_never_count():
    method, terminal, requisite = _desk(sandbox=True, after=1)
    for action in ("expire", "complete", "expire"):
        order = buy_order(terminal=terminal, method=method)
        order_simulate(order=order, action=action)
    assert _state(requisite) == (True, None, 0)
    _expire_by_clock(terminal, method)  # the clock counts, even in the sandbox
    assert _state(requisite)[:2] == (False, "auto_expired")


def test_an_operator_may_set_it_off_whatever_the_reason():
    method, terminal, requisite = _desk(after=1)
    requisite_switch(requisite_id=requisite.pk, on=False, by_operator=True)
    assert Requisite.objects.get(pk=requisite.pk).disabled_reason == "operator"


def test_the_admins_actions_switch_it_on_and_off(admin_client):
    method, terminal, requisite = _desk(after=1)
    _expire_by_clock(terminal, method)
    url = "/admin/orders/requisite/"
    response = admin_client.post(
        url, {"action": "switch_on", "_selected_action": [str(requisite.pk)]}
    )
    assert response.status_code == 302
    assert _state(requisite) == (True, None, 0)
    admin_client.post(url, {"action": "switch_off", "_selected_action": [str(requisite.pk)]})
    assert _state(requisite)[:2] == (False, "operator")
