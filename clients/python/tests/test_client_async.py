"""The async client against the live server: the same calls, awaited."""

import asyncio
from decimal import Decimal

import pytest
from paymentsvc_client import (
    AsyncClient,
    AsyncTraderClient,
    AuthenticationError,
    ConflictError,
    NotFoundError,
    OrderStatus,
    RateLimitError,
    ValidationError,
)

from .conftest import FAST_RETRIES, SHOP_KEY, TRADER_KEYS, png_bytes


def test_the_async_client_creates_reads_lists_and_raises(live):
    async def scenario():
        async with AsyncClient(live, SHOP_KEY, retry=FAST_RETRIES) as client:
            methods = {m.method_name: m.method_id for m in await client.finance.payment_methods()}
            orders = await asyncio.gather(
                *(
                    client.orders.create(
                        client_order_id=f"async-{i}",
                        order_side="Buy",
                        payment_method_id=methods["T-Bank SBP"],
                        amount=f"{2000 + i}.00",
                    )
                    for i in range(3)
                )
            )
            assert {o.status for o in orders} == {OrderStatus.PENDING}
            assert (await client.orders.get(orders[0].id)).amount == Decimal("2000.00")

            page = await client.orders.list(size=2)
            assert (page.total, page.pages, len(page.items)) == (3, 2, 2)
            walked = [o.id async for o in client.orders.list_all(size=2)]
            assert sorted(walked) == sorted(o.id for o in orders)

            balance = await client.finance.balance()
            assert balance.available == Decimal("100000.00")

            dispute = await client.disputes.create(
                orders[0].id, "2000", files=[("receipt.png", png_bytes())]
            )
            assert len(dispute.dispute_files) == 1
            found = await client.disputes.search(dispute_id=dispute.dispute_id)
            assert found.items[0].order_id == orders[0].id

            session = await client.form.create(client_order_id="async-form", amount="700")
            assert (await client.form.search(session_id=session.session_id)).total == 1

            with pytest.raises(NotFoundError):
                await client.orders.get("00000000-0000-0000-0000-000000000000")
            with pytest.raises(ValidationError) as invalid:
                await client.orders.list(size=1000)
            assert "size" in invalid.value.errors

            traders = [AsyncTraderClient(live, key) for key in TRADER_KEYS]
            try:
                (trader,) = [
                    t
                    for t in traders
                    if orders[1].id in {o.id async for o in t.orders.list_all(status="Pending")}
                ]
                done = await trader.orders.confirm(orders[1].id)
                assert done.status is OrderStatus.COMPLETED
                with pytest.raises(ConflictError):
                    await trader.orders.cancel(orders[1].id)
            finally:
                for t in traders:
                    await t.aclose()

            cancelled = await client.orders.cancel(orders[2].id)
            assert cancelled.status is OrderStatus.CANCELLED

        async with AsyncClient(live, "not-a-key") as stranger:
            with pytest.raises(AuthenticationError):
                await stranger.ping()

    asyncio.run(scenario())


def test_the_async_client_waits_out_a_429_and_reports_it_when_told_not_to(live, settings):
    from django.core.cache import cache

    settings.API_RATE_LIMIT = "2/s"
    cache.clear()

    async def scenario():
        async with AsyncClient(live, SHOP_KEY, max_retries=0) as impatient:
            with pytest.raises(RateLimitError) as limited:
                for _ in range(20):
                    await impatient.finance.balance()
            assert limited.value.retry_after is not None and limited.value.retry_after >= 1
            assert limited.value.code == "rate_limited"
        async with AsyncClient(live, SHOP_KEY, retry=FAST_RETRIES) as patient:
            results = [await patient.finance.balance() for _ in range(5)]
            assert len(results) == 5

    try:
        asyncio.run(scenario())
    finally:
        cache.clear()
