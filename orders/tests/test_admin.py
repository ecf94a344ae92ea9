"""Requisites in the admin: a payer is told to send money to what operators type here."""

import pytest

from orders.models import Requisite


@pytest.fixture
def operator(client, operator_user):
    assert client.login(username="operator", password="operator-demo-password")
    client.cookies["django_language"] = "en"  # these pages' words, in English
    return client


def requisite_form(requisite, **changes) -> dict:
    return {
        "trader": str(requisite.trader_id),
        "method": str(requisite.method_id),
        "holder_name": requisite.holder_name,
        "account": requisite.account,
        "is_active": "on",
        "daily_limit": str(requisite.daily_limit),
        "max_pending": "",
        **changes,
    }


@pytest.mark.parametrize(
    ("method", "changes", "error"),
    [
        ("Sberbank SBP", {"account": "hello world"}, "Russian phone number"),
        ("Bank card", {"account": "2200 7001 1234 5670"}, "Luhn"),
        ("Sberbank SBP", {"daily_limit": "-5"}, "cannot be negative"),
        ("Sberbank SBP", {"method": "SBP"}, "aggregate"),
    ],
)
def test_a_requisite_payers_could_not_pay_is_refused(operator, world, method, changes, error):
    requisite = Requisite.objects.filter(method=world.methods[method]).first()
    if "method" in changes:
        changes["method"] = world.method_id(changes["method"])
    response = operator.post(
        f"/admin/orders/requisite/{requisite.pk}/change/", requisite_form(requisite, **changes)
    )
    assert response.status_code == 200
    assert error in response.content.decode()
    before = requisite.account, requisite.daily_limit, requisite.method_id
    requisite.refresh_from_db()
    assert (requisite.account, requisite.daily_limit, requisite.method_id) == before


def test_a_requisite_account_is_stored_normalised(operator, world):
    requisite = Requisite.objects.filter(method=world.methods["Sberbank SBP"]).first()
    response = operator.post(
        f"/admin/orders/requisite/{requisite.pk}/change/",
        requisite_form(requisite, account="8 (999) 000-12-34"),
    )
    assert response.status_code == 302
    requisite.refresh_from_db()
    assert requisite.account == "+79990001234"


def test_one_trader_key_is_revoked_on_its_own(operator, world):
    from conftest import ApiClient
    from orders.models import TraderApiKey

    one, two = (r.trader for r in world.requisites[:2])
    key = TraderApiKey.objects.get(trader=one)
    listing = operator.get("/admin/orders/traderapikey/", {"q": one.name}).content.decode()
    assert key.key_prefix in listing
    operator.post(
        "/admin/orders/traderapikey/", {"action": "revoke", "_selected_action": [str(key.pk)]}
    )
    assert ApiClient(f"trader-key-{one.pk}").get("/api/v1/trader/orders").status_code == 401
    assert ApiClient(f"trader-key-{two.pk}").get("/api/v1/trader/orders").status_code == 200


def test_revoking_all_keys_of_a_trader_revokes_each_and_no_other(operator, world):
    from conftest import ApiClient
    from orders.models import TraderApiKey

    trader, two = (r.trader for r in world.requisites[:2])
    response = operator.post(
        "/admin/orders/trader/",
        {"action": "revoke_api_keys", "_selected_action": [str(trader.pk)]},
    )
    assert response.status_code == 302
    assert not TraderApiKey.objects.filter(trader=trader, revoked_at__isnull=True).exists()
    assert ApiClient(f"trader-key-{trader.pk}").get("/api/v1/trader/orders").status_code == 401
    assert ApiClient(f"trader-key-{two.pk}").get("/api/v1/trader/orders").status_code == 200


def test_a_trader_key_generated_in_the_admin_is_shown_once_and_works(operator, world):
    from django.contrib.admin.models import LogEntry

    from conftest import ApiClient
    from orders.models import TraderApiKey

    trader = world.requisites[0].trader
    page = operator.post(
        "/admin/orders/trader/",
        {"action": "generate_api_key", "_selected_action": [str(trader.pk)]},
        follow=True,
    ).content.decode()
    raw = page.split(f"New key for {trader.name}: ")[1].split(" ")[0]
    assert ApiClient(raw).get("/api/v1/trader/orders").status_code == 200
    key = TraderApiKey.objects.get(key_prefix=raw[:8])
    assert key.name == "выпущен оператором operator"
    note = LogEntry.objects.get(object_id=str(trader.pk)).change_message
    assert note == f"Выпущен API-ключ {key.key_prefix}…"


def test_the_is_active_box_is_an_operators_switch(operator, world):
    from core.testing import ApiClient

    requisite = Requisite.objects.filter(method=world.methods["Sberbank SBP"]).first()
    Requisite.objects.filter(pk=requisite.pk).update(expired_in_a_row=2)
    url = f"/admin/orders/requisite/{requisite.pk}/change/"
    off = requisite_form(requisite)
    del off["is_active"]
    assert operator.post(url, off).status_code == 302
    requisite.refresh_from_db()
    assert (requisite.is_active, requisite.disabled_reason) == (False, "operator")
    # its trader cannot switch on what an operator switched off
    trader = ApiClient(f"trader-key-{requisite.trader_id}")
    assert trader.post(f"/api/v1/trader/requisites/{requisite.pk}/enable").status_code == 409
    assert operator.post(url, requisite_form(requisite)).status_code == 302
    requisite.refresh_from_db()
    assert (requisite.is_active, requisite.disabled_reason, requisite.expired_in_a_row) == (
        True,
        None,
        0,
    )


def test_operators_set_a_requisites_own_range_and_automatic_switch_off(operator, world):
    requisite = Requisite.objects.filter(method=world.methods["Sberbank SBP"]).first()
    url = f"/admin/orders/requisite/{requisite.pk}/change/"
    limits = {"min_amount": "100.00", "max_amount": "600.00", "auto_disable_after": "3"}
    assert operator.post(url, requisite_form(requisite, **limits)).status_code == 302
    requisite.refresh_from_db()
    assert (requisite.min_amount, requisite.max_amount, requisite.auto_disable_after) == (
        100,
        600,
        3,
    )
    for changes, error in [
        ({"min_amount": "700.00", "max_amount": "600.00"}, "below the minimum"),
        ({"min_amount": "0"}, "above zero"),
        ({"max_amount": "1" + "0" * 12}, "12 digits before the decimal point"),
        ({"auto_disable_after": "0"}, "At least one expiry"),
    ]:
        page = operator.post(url, requisite_form(requisite, **{**limits, **changes}))
        assert page.status_code == 200 and error in page.content.decode(), changes
    requisite.refresh_from_db()
    assert (requisite.min_amount, requisite.max_amount) == (100, 600)
