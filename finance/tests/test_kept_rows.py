"""Keys with their terminals, and methods with their fee ranges, are kept per process
between requests (core.memo); a change is seen by the very next request, in this
process at once and in every other once the shared generation moves."""

from decimal import Decimal

from django.core.cache import cache
from django.utils import timezone

from core import memo
from core.testing import ApiClient
from finance.models import ApiKey, FeeRange, Terminal
from finance.services import api_key_revoke
from finance.tests.factories import TerminalFactory
from orders.tests.factories import RequisiteFactory

BALANCE = "/api/v1/finance/balance"


def test_a_revoked_key_is_refused_on_the_next_request(db):
    terminal = TerminalFactory(key="kept-key")
    client = ApiClient("kept-key")
    assert client.get(BALANCE).status_code == 200
    api_key_revoke(key=ApiKey.objects.get(terminal=terminal))
    assert client.get(BALANCE).status_code == 401


def test_a_deactivated_terminal_is_refused_on_the_next_request(db):
    terminal = TerminalFactory(key="kept-key")
    client = ApiClient("kept-key")
    assert client.get(BALANCE).status_code == 200
    terminal.is_active = False
    terminal.save()
    assert client.get(BALANCE).status_code == 401


def test_another_process_change_is_seen_once_the_generation_moves(db):
    """A change made elsewhere (a write that tells this process nothing, as another
    process's would not) is not seen while the generation stands, and is seen as soon
    as that process's commit moves it."""
    terminal = TerminalFactory(key="kept-key")
    client = ApiClient("kept-key")
    assert client.get(BALANCE).status_code == 200
    ApiKey.objects.filter(terminal=terminal).update_quietly(revoked_at=timezone.now())
    assert client.get(BALANCE).status_code == 200  # kept: no generation moved
    cache.set(memo.GENERATION_KEY, "moved-by-another-process", timeout=None)
    assert client.get(BALANCE).status_code == 401


def test_a_lost_generation_keeps_nothing_stale(db):
    """When the shared cache loses the generation (a restart), a fresh one is opened,
    and what was kept under the old one is not used."""
    terminal = TerminalFactory(key="kept-key")
    client = ApiClient("kept-key")
    assert client.get(BALANCE).status_code == 200
    Terminal.objects.filter(pk=terminal.pk).update_quietly(is_active=False)
    cache.delete(memo.GENERATION_KEY)
    assert client.get(BALANCE).status_code == 401


def test_a_new_fee_applies_to_the_next_order(db):
    requisite = RequisiteFactory()
    shop = ApiClient(TerminalFactory(methods=[requisite.method]).raw_key)
    body = {
        "client_order_id": "fee-1",
        "order_side": "Buy",
        "payment_method_id": str(requisite.method_id),
        "amount": "1000.00",
    }
    first = shop.post("/api/v1/order/", body)
    assert first.status_code == 201, first.content
    assert first.json()["fee"] == "5.00"
    fee_range = FeeRange.objects.get(method=requisite.method, side="Buy")
    fee_range.fee = Decimal("7.5")
    fee_range.save()
    second = shop.post("/api/v1/order/", dict(body, client_order_id="fee-2", amount="1001.00"))
    assert second.status_code == 201, second.content
    assert second.json()["fee"] == "7.50"


def test_an_update_is_seen_by_the_next_request(db):
    """update() sends no save signal; a watched model's QuerySet forgets kept rows
    itself, so no caller has to remember to."""
    terminal = TerminalFactory(key="kept-key")
    client = ApiClient("kept-key")
    assert client.get(BALANCE).status_code == 200
    Terminal.objects.filter(pk=terminal.pk).update(is_active=False)
    assert client.get(BALANCE).status_code == 401


def test_every_watched_model_forgets_on_update():
    """memo.watch refuses a model whose manager's update() would not forget."""
    from django.apps import apps

    from core.memo import WatchedQuerySet

    watched = [
        apps.get_model(label)
        for label in ("finance.ApiKey", "finance.Terminal", "finance.PaymentMethod")
    ]
    for model in watched:
        assert isinstance(model.objects.all(), WatchedQuerySet)
