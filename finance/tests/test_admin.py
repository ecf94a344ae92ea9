from decimal import Decimal

from finance.models import ApiKey, Balance, Transaction
from finance.services import ledger_check


def login(client):
    assert client.login(username="operator", password="operator-demo-password")
    return client


def test_operator_tops_up_with_a_comment_through_a_ledger_transaction(client, demo):
    login(client)
    balance = Balance.objects.get(terminal=demo.shop)
    response = client.post(
        f"/admin/finance/balance/{balance.pk}/adjust/", {"amount": "500.25", "comment": "Wire 42"}
    )
    assert response.status_code == 302
    balance.refresh_from_db()
    assert balance.available == Decimal("100500.25")
    txn = Transaction.objects.order_by("-created_at").first()
    assert (txn.transaction_type, txn.amount, txn.client_description, txn.created_by) == (
        "deposit",
        Decimal("500.25"),
        "Wire 42",
        "operator",
    )
    assert ledger_check() == []


def test_operator_cannot_withdraw_more_than_available(client, demo):
    login(client)
    balance = Balance.objects.get(terminal=demo.closed_shop)
    response = client.post(
        f"/admin/finance/balance/{balance.pk}/adjust/", {"amount": "-1", "comment": "x"}
    )
    assert response.status_code == 200
    assert b"Insufficient funds" in response.content
    assert not Transaction.objects.filter(balance=balance).exists()


def test_ledger_is_read_only_in_admin(client, demo):
    login(client)
    txn = Transaction.objects.first()
    assert (
        client.post(f"/admin/finance/transaction/{txn.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert client.get("/admin/finance/transaction/add/").status_code == 403


def test_generate_and_revoke_keys(client, demo, anonymous):
    login(client)
    response = client.post(
        "/admin/finance/terminal/",
        {"action": "generate_api_key", "_selected_action": [str(demo.closed_shop.pk)]},
        follow=True,
    )
    text = response.content.decode()
    raw = text.split("New key for Closed Shop: ")[1].split(" ")[0]
    anonymous.key = raw
    assert anonymous.get("/api/v1/finance/balance").status_code == 200
    key = ApiKey.objects.get(key_prefix=raw[:8])
    assert raw not in (key.key_hash, key.key_prefix)
    client.post("/admin/finance/apikey/", {"action": "revoke", "_selected_action": [key.pk]})
    response = anonymous.get("/api/v1/finance/balance")
    assert response.status_code == 401 and response.json()["message"] == "Invalid API key"


def test_admin_pages_render(client, demo):
    login(client)
    for url in [
        "/admin/finance/terminal/",
        f"/admin/finance/terminal/{demo.shop.pk}/change/",
        "/admin/finance/balance/",
        "/admin/finance/transaction/",
        "/admin/finance/paymentmethod/",
        "/admin/orders/order/",
        "/admin/orders/trader/",
        "/admin/finance/blacklistedaccount/add/",
    ]:
        assert client.get(url).status_code == 200, url


def test_blacklist_entries_are_normalised(client, demo):
    login(client)
    client.post(
        "/admin/finance/blacklistedaccount/add/",
        {"account": "8 (999) 555-44-33", "comment": "fraud"},
    )
    from finance.models import BlacklistedAccount

    assert BlacklistedAccount.objects.filter(account="+79995554433").exists()
