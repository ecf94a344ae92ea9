"""A dispute's pages say what a decision does to this order and this merchant's money."""

from .test_admin import open_dispute


def test_the_accept_page_states_the_money_that_will_move(shop, world, operator):
    order, dispute = open_dispute(shop, world, amount="800")
    page = operator.get(f"/admin/disputes/dispute/resolve/accept/?ids={dispute.pk}")
    assert "order Pending -&gt; Completed, merchant +760.00 RUB" in page.content.decode()
    page = operator.get(f"/admin/disputes/dispute/resolve/reject/?ids={dispute.pk}")
    assert "decision recorded; no money moves" in page.content.decode()

    detail = operator.get(f"/admin/disputes/dispute/{dispute.pk}/change/").content.decode()
    assert "800.00 RUB (order amount 1,000.00)" in detail
    assert "claimed amount" in detail.lower()


def test_a_dispute_leads_to_its_order_history_webhooks_and_the_merchants_balance(
    shop, world, operator
):
    from finance.models import Balance

    order, dispute = open_dispute(shop, world, amount="800")
    page = operator.get(f"/admin/disputes/dispute/{dispute.pk}/change/").content.decode()
    balance = Balance.objects.get(terminal=world.shop)
    for href in [
        f"/admin/orders/order/{order['id']}/change/",
        f"/admin/orders/order/{order['id']}/history/",
        f"/admin/webhooks/webhookevent/?q={order['id']}",
        f"/admin/finance/balance/{balance.pk}/change/",
    ]:
        assert f'href="{href}"' in page, href
        assert operator.get(href).status_code == 200, href
