import pytest

from orders.tests.world import trader_for

URL = "/api/v1/form/search"


@pytest.fixture
def shop(world):
    return world.api


def create(client, **order_data):
    data = {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000"}
    data.update(order_data)
    return client.post(
        "/api/v1/form/create", {"order_data": data, "support_url": "https://help.example"}
    ).json()["form_data"]


def test_item_fields_are_filled_truthfully(shop, world):
    form = create(shop, button_name="TPay", user_id="u-7")
    body = shop.get(URL).json()
    assert set(body) == {"total", "page", "size", "pages", "items"}
    item = body["items"][0]
    assert item["session_id"] == form["session_id"]
    assert item["ip_address"] == "127.0.0.1"
    assert item["terminal_id"] == str(world.shop.pk)
    assert item["merchant_name"] == world.shop.name
    assert item["payment_method_type"] == "SBP"
    assert item["nspk_code"] == "100000000004"
    assert item["state"] == "requisites_found"
    assert item["order_id"]
    assert item["search_count"] == 1
    assert item["selection"] is False
    assert item["user_id"] == "u-7"
    assert item["currency"] == "RUB"
    assert item["support_url"] == "https://help.example"
    assert item["requisites_request_starts_at"].endswith("Z")
    assert item["requisites_request_expires_at"] > item["requisites_request_starts_at"]
    assert item["payment_confirmation_starts_at"] is None
    assert item["expires_at"].endswith("Z")


def test_filters(shop, world):
    a = create(shop, button_name="TPay", client_order_id="a")
    create(shop, client_order_id="b")
    assert shop.get(URL, {"client_order_id": "a"}).json()["total"] == 1
    assert shop.get(URL, {"session_id": a["session_id"]}).json()["total"] == 1
    assert shop.get(URL, {"state": "method_selection"}).json()["total"] == 1
    assert shop.get(URL, {"currency": "RUB"}).json()["total"] == 2
    assert shop.get(URL, {"terminal_id": str(world.shop.pk)}).json()["total"] == 2
    assert shop.get(URL, {"terminal_id": str(world.terminal().pk)}).json()["total"] == 0
    item = shop.get(URL, {"session_id": a["session_id"]}).json()["items"][0]
    assert shop.get(URL, {"order_id": item["order_id"]}).json()["total"] == 1
    assert shop.get(URL, {"order_id": "garbage"}).json()["total"] == 0


def test_state_follows_the_order(shop, world):
    form = create(shop, button_name="TPay")
    item = shop.get(URL).json()["items"][0]
    trader_for({"id": item["order_id"]}).post(f"/api/v1/trader/orders/{item['order_id']}/confirm")
    assert (
        shop.get(URL, {"session_id": form["session_id"]}).json()["items"][0]["state"] == "completed"
    )
    assert shop.get(URL, {"state": "completed"}).json()["total"] == 1


@pytest.mark.parametrize(
    "params", [{"state": "done"}, {"currency": "USD"}, {"page": 0}, {"size": 101}]
)
def test_bad_parameters_are_400(shop, world, params):
    assert shop.get(URL, params).status_code == 400


def test_other_terminals_sessions_are_invisible(shop, closed_shop, world):
    form = create(shop)
    assert closed_shop.get(URL).json()["total"] == 0
    assert closed_shop.get(URL, {"session_id": form["session_id"]}).json()["total"] == 0


def test_pages_default_to_ten_newest_first(shop, world):
    for i in range(12):
        create(shop, client_order_id=f"p-{i}")
    first = shop.get(URL).json()
    assert (first["total"], first["page"], first["size"], first["pages"]) == (12, 1, 10, 2)
    assert [i["client_order_id"] for i in first["items"][:2]] == ["p-11", "p-10"]
    second = shop.get(URL, {"page": 2}).json()
    assert [i["client_order_id"] for i in second["items"]] == ["p-1", "p-0"]
    assert shop.get(URL, {"page": 3}).json()["items"] == []
    assert shop.get(URL, {"size": 100}).json()["pages"] == 1


def test_an_id_that_names_nothing_finds_nothing(shop, world):
    create(shop)
    for params in ({"session_id": "x" * 100}, {"terminal_id": "nope"}, {"order_id": "1"}):
        assert shop.get(URL, params).json()["total"] == 0


def test_a_session_awaiting_a_choice_has_no_method_or_order(shop, world):
    create(shop)
    item = shop.get(URL).json()["items"][0]
    assert item["state"] == "method_selection" and item["selection"] is True
    assert item["order_id"] is None and item["search_count"] == 0
    # The search window is always stated: here the one a choice made now would get.
    assert item["requisites_request_starts_at"].endswith("Z")
    assert item["requisites_request_expires_at"] > item["requisites_request_starts_at"]


def test_search_writes_nothing_and_shows_the_implied_state(shop, world):
    from forms_ui.models import FormSession
    from orders.models import Order

    form = create(shop, button_name="TPay")
    session = FormSession.objects.get(pk=form["session_id"])
    stored = (session.state, session.updated_at)
    # The order completes without the session being told (as before the sweep runs).
    Order.objects.filter(pk=session.order_id).update(status="Completed")
    assert shop.get(URL, {"state": "completed"}).json()["total"] == 1
    assert shop.get(URL, {"state": stored[0]}).json()["total"] == 0
    item = shop.get(URL, {"session_id": form["session_id"]}).json()["items"][0]
    assert item["state"] == "completed"
    session.refresh_from_db()
    assert (session.state, session.updated_at) == stored
