"""The client against a running service (pytest-django's live server, demo data):
every call goes over real HTTP, results come back typed, errors as exceptions."""

from datetime import datetime
from decimal import Decimal

import pytest
from paymentsvc_client import (
    AuthenticationError,
    Balance,
    Client,
    ConflictError,
    DisputeCreated,
    FormSession,
    NotFoundError,
    Order,
    OrderSide,
    OrderStatus,
    Page,
    PermissionDeniedError,
    Receipt,
    SessionState,
    TraderClient,
    TransactionType,
    UnsupportedMediaTypeError,
    ValidationError,
)

from .conftest import TRADER_KEYS, has_route, png_bytes

UNKNOWN_ORDER = "00000000-0000-0000-0000-000000000000"


def buy(client, method_ids, amount="1000.00", method="Sberbank SBP", **extra) -> Order:
    return client.orders.create(
        client_order_id=extra.pop("client_order_id", "sdk-order"),
        order_side=OrderSide.BUY,
        payment_method_id=method_ids[method],
        amount=Decimal(amount),
        **extra,
    )


def test_a_buy_comes_back_typed_and_reads_back_unwrapped(client, method_ids):
    order = buy(client, method_ids, client_order_id="sdk-typed")
    assert isinstance(order, Order)
    assert order.order_side is OrderSide.BUY
    assert order.status is OrderStatus.PENDING
    assert order.amount == Decimal("1000.00") and isinstance(order.amount, Decimal)
    assert order.fee_amount == Decimal("50.00")
    assert order.fixed_fee is None
    assert isinstance(order.created_at, datetime) and order.created_at.utcoffset() is not None
    assert order.expires_at > order.created_at
    assert order.holder_account

    again = client.orders.get(order.id)
    assert again.id == order.id
    assert again.status is OrderStatus.PENDING
    assert again.client_order_id == "sdk-typed"
    assert again["amount"] == Decimal("1000.00")
    assert again.to_dict()["amount"] == "1000.00"

    found = client.orders.search_by_client_order_id("sdk-typed")
    assert [o.id for o in found.items] == [order.id]


def test_list_is_one_page_and_list_all_walks_every_page(client, method_ids):
    created = {
        buy(client, method_ids, amount, client_order_id=f"sdk-page-{amount}").id
        for amount in ("1000.00", "1001.00", "1002.00", "1003.00", "1004.00")
    }
    page = client.orders.list(size=2)
    assert isinstance(page, Page)
    assert (page.page, page.size, page.total, page.pages) == (1, 2, 5, 3)
    assert len(page.items) == 2 and all(isinstance(o, Order) for o in page)

    walked = [o.id for o in client.orders.list_all(size=2)]
    assert len(walked) == 5 and set(walked) == created

    assert [o.id for o in client.orders.list_all(size=2, order_side="Sell")] == []


def test_cancel_and_the_typed_errors(client, method_ids, live):
    order = buy(client, method_ids)
    cancelled = client.orders.cancel(order.id)
    assert cancelled.status is OrderStatus.CANCELLED

    with pytest.raises(ConflictError) as conflict:
        client.orders.cancel(order.id)
    assert conflict.value.status == 409

    with pytest.raises(NotFoundError) as missing:
        client.orders.get(UNKNOWN_ORDER)
    assert (missing.value.status, missing.value.code) == (404, "order_not_found")
    assert missing.value.message

    with pytest.raises(ValidationError) as invalid:
        buy(client, method_ids, amount="10.001")
    assert invalid.value.status == 400
    assert invalid.value.code == "validation_error"
    assert "amount" in invalid.value.errors

    with pytest.raises(ValidationError) as no_method:
        client.orders.create(client_order_id="x", order_side="Buy", amount="1000")
    assert no_method.value.message == "Payment method ID or method type is required"

    with pytest.raises(NotFoundError) as no_such_method:
        buy(client, method_ids, method="Legacy card")
    assert no_such_method.value.message == "Payment method not found"

    with Client(live, "demo-revoked-key") as revoked, pytest.raises(AuthenticationError) as auth:
        revoked.finance.balance()
    assert (auth.value.status, auth.value.message) == (401, "Invalid API key")


def test_finance_reads_are_typed(client, method_ids):
    balance = client.finance.balance()
    assert isinstance(balance, Balance)
    assert balance.available == Decimal("100000.00") and balance.frozen == Decimal("0.00")
    assert balance.total == balance.available + balance.frozen

    transactions = client.finance.transactions()
    (initial,) = transactions.items
    assert initial.transaction_type is TransactionType.DEPOSIT
    assert initial.client_description == "Initial deposit"
    assert initial.amount == Decimal("100000.00") and initial.balance_after == initial.amount
    assert initial.terminal.name == "Demo Shop"
    assert [t.id for t in client.finance.transactions_all(size=1)] == [initial.id]

    methods = client.finance.payment_methods(active=True)
    card = next(m for m in methods if m.method_name == "Bank card")
    buy_range = next(r for r in card.ranges if r.fee_side == "Buy")
    assert (buy_range.min_amount, buy_range.max_amount) == (Decimal("500"), Decimal("150000"))
    assert buy_range.fee == Decimal("6")
    assert "Legacy card" not in {m.method_name for m in methods}
    sbp_only = client.finance.payment_methods(method_type="BankCard")
    assert {m.method_type for m in sbp_only} == {"BankCard"}


def test_form_sessions_are_created_and_searched(client):
    session = client.form.create(
        client_order_id="sdk-form", amount="1500", button_name="SberPay", return_url=None
    )
    assert isinstance(session, FormSession)
    assert session.form_url.endswith(session.session_id)
    assert session.order_data.amount == Decimal("1500.00")
    assert session.order_data.order_side is OrderSide.BUY

    found = client.form.search(session_id=session.session_id)
    (item,) = found.items
    assert item.client_order_id == "sdk-form"
    assert isinstance(item.state, SessionState)
    assert item.merchant_name == "Demo Shop"
    assert [s.session_id for s in client.form.search_all(size=1)] == [session.session_id]

    with pytest.raises(ValidationError):
        client.form.create(client_order_id="sdk-form", amount="1500", order_side="Sell")


def test_a_dispute_with_a_png_is_opened_and_listed(client, method_ids):
    order = buy(client, method_ids)
    created = client.disputes.create(
        order.id, Decimal("1000.00"), files=[("proof.png", png_bytes())]
    )
    assert isinstance(created, DisputeCreated)
    assert created.order_id == order.id and len(created.dispute_files) == 1

    listed = client.disputes.search(order_id=order.id)
    (dispute,) = listed.items
    assert dispute.dispute_id == created.dispute_id
    assert dispute.amount == Decimal("1000.00") and isinstance(dispute.amount, Decimal)
    assert dispute.processed is False and dispute.resolution is None
    assert [d.dispute_id for d in client.disputes.search_all(processed=False)] == [
        created.dispute_id
    ]

    other = buy(client, method_ids, amount="1001.00")
    with pytest.raises(UnsupportedMediaTypeError):
        client.disputes.create(other.id, "10", files=[("notes.png", b"just text, not a PNG")])
    with pytest.raises(NotFoundError):
        client.disputes.create(UNKNOWN_ORDER, "10")


def test_dispute_on_another_terminals_order_is_permission_denied(client, method_ids, live):
    order = buy(client, method_ids)
    with Client(live, "demo-form-key") as other, pytest.raises(PermissionDeniedError) as denied:
        other.disputes.create(order.id, "100")
    assert denied.value.status == 403


def test_traders_list_confirm_and_cancel_their_orders(client, method_ids, live):
    first = buy(client, method_ids, client_order_id="sdk-trader-1")
    second = buy(client, method_ids, amount="1001.00", client_order_id="sdk-trader-2")
    traders = [TraderClient(live, key) for key in TRADER_KEYS]
    try:

        def holder(order_id):
            (trader,) = [
                t
                for t in traders
                if order_id in {o.id for o in t.orders.list_all(status="Pending")}
            ]
            return trader

        trader = holder(first.id)
        confirmed = trader.orders.confirm(first.id)
        assert confirmed.status is OrderStatus.COMPLETED
        assert confirmed.paid_amount == Decimal("1000.00")
        assert client.orders.get(first.id).status is OrderStatus.COMPLETED
        with pytest.raises(ConflictError):
            trader.orders.confirm(first.id)
        outsider = next(t for t in traders if t is not trader)
        with pytest.raises(NotFoundError):
            outsider.orders.confirm(first.id)

        assert holder(second.id).orders.cancel(second.id).status is OrderStatus.CANCELLED
        assert client.finance.balance().available == Decimal("100950.00")

        with pytest.raises(AuthenticationError):
            Client(live, TRADER_KEYS[0]).finance.balance()
    finally:
        for t in traders:
            t.close()


@pytest.mark.skipif(
    not has_route("/api/v1/trader/orders/x/receipts"),
    reason="the service has no receipts for traders yet (docs/orders.md#payers-receipts)",
)
def test_a_trader_reads_the_receipts_the_payer_attached(client, method_ids, live):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from orders.receipts import receipt_attach

    order = buy(client, method_ids, client_order_id="sdk-receipt")
    assert order.receipts_count == 0
    # What the payer's page does with an uploaded file.
    receipt_attach(
        order_id=order.id, upload=SimpleUploadedFile("paid.png", png_bytes(), "image/png")
    )
    assert client.orders.get(order.id).receipts_count == 1

    traders = [TraderClient(live, key) for key in TRADER_KEYS]
    try:
        (trader,) = [
            t for t in traders if order.id in {o.id for o in t.orders.list_all(status="Pending")}
        ]
        (receipt,) = trader.orders.receipts(order.id)
        assert isinstance(receipt, Receipt)
        assert receipt.content_type == "image/png"
        assert receipt.size == len(png_bytes())
        assert receipt.uploaded_at.utcoffset() is not None
        assert trader.orders.receipt_content(order.id, receipt.id) == png_bytes()
        outsider = next(t for t in traders if t is not trader)
        with pytest.raises(NotFoundError):
            outsider.orders.receipts(order.id)
    finally:
        for t in traders:
            t.close()
