"""A dispute's pages say what a decision does to this order and this merchant's money."""

from .test_admin import open_dispute


def test_the_accept_page_states_the_money_that_will_move(shop, demo, client):
    assert client.login(username="operator", password="operator-demo-password")
    order, dispute = open_dispute(shop, demo, amount="800")
    page = client.get(f"/admin/disputes/dispute/resolve/accept/?ids={dispute.pk}")
    assert "order Pending -&gt; Completed, merchant +760.00 RUB" in page.content.decode()
    page = client.get(f"/admin/disputes/dispute/resolve/reject/?ids={dispute.pk}")
    assert "decision recorded; no money moves" in page.content.decode()

    detail = client.get(f"/admin/disputes/dispute/{dispute.pk}/change/").content.decode()
    assert "800.00 RUB (order amount 1000.00)" in detail
    assert "claimed amount" in detail.lower()
