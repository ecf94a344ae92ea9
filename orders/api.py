from datetime import UTC, datetime, timedelta

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from finance.models import IntegrationType, MethodType, Side
from paymentsvc.api import (
    DateRangeMixin,
    TerminalAPIView,
    TraderAPIView,
    ok,
    page_query,
    paginate,
    parse_query,
)
from paymentsvc.errors import InvalidRequest
from paymentsvc.fields import AmountField, ClientOrderIdField, HttpUrlField
from paymentsvc.idempotency import idempotent
from paymentsvc.schema import page_schema

from . import selectors, services
from .models import OrderStatus
from .receipts import receipt_response, render_receipt
from .render import render_order, render_orders


def _day_before(moment: datetime) -> datetime:
    """The default start of the list's window; an end_date in year 1 has no day before."""
    try:
        return moment - timedelta(hours=24)
    except OverflowError:
        return datetime.min.replace(tzinfo=UTC)


# --- Merchant API -----------------------------------------------------------------------


class OrderCreateIn(serializers.Serializer):
    client_order_id = ClientOrderIdField()
    order_side = serializers.ChoiceField(choices=Side.choices)
    payment_method_id = serializers.CharField(required=False, allow_null=True, max_length=64)
    method_type = serializers.ChoiceField(
        choices=MethodType.choices, required=False, allow_null=True
    )
    nspk_code = serializers.CharField(required=False, allow_null=True, max_length=20)
    amount = AmountField()
    customer_name = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=200
    )
    # Blank is "not given": a Sell without it gets the contract's own message.
    customer_account = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=64
    )
    user_id = serializers.CharField(required=False, allow_null=True, max_length=255)
    webhook_url = HttpUrlField(url_max_length=512)
    unique_amount = serializers.BooleanField(required=False, allow_null=True, default=False)
    redirect_url = HttpUrlField()
    support_url = HttpUrlField()
    return_url = HttpUrlField()
    customer_bank = serializers.CharField(required=False, allow_null=True, max_length=30)


class OrderOut(serializers.Serializer):
    id = serializers.CharField()
    client_order_id = serializers.CharField()
    currency = serializers.CharField()
    method_id = serializers.CharField()
    method_name = serializers.CharField()
    method_type = serializers.CharField()
    initial_method_id = serializers.CharField()
    order_side = serializers.ChoiceField(choices=Side.choices)
    amount = serializers.CharField()
    fee = serializers.CharField()
    fixed_fee = serializers.FloatField(allow_null=True)
    fee_amount = serializers.CharField()
    paid_amount = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=OrderStatus.choices)
    holder_name = serializers.CharField()
    holder_account = serializers.CharField()
    customer_name = serializers.CharField(allow_null=True)
    customer_account = serializers.CharField(allow_null=True)
    customer_bank = serializers.CharField(allow_null=True)
    payment_link = serializers.CharField(allow_null=True)
    webhook_url = serializers.CharField(allow_null=True)
    form_url = serializers.CharField(required=False)
    created_at = serializers.CharField()
    updated_at = serializers.CharField()
    expires_at = serializers.CharField()
    receipts_count = serializers.IntegerField()
    livemode = serializers.BooleanField()


OrderEnvelope = inline_serializer(
    "OrderResponse",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(),
        "order": OrderOut(),
    },
)
OrderPage = inline_serializer(
    "OrderPage",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(),
        "orders": page_schema("OrderPageBody", OrderOut(many=True)),
    },
)


class OrderListQuery(page_query(10), DateRangeMixin):
    payment_method_id = serializers.CharField(required=False, max_length=64)
    order_side = serializers.ChoiceField(choices=Side.choices, required=False)
    status = serializers.ChoiceField(choices=OrderStatus.choices, required=False)
    sort_by = serializers.ChoiceField(choices=["created_at", "amount"], default="created_at")
    sort = serializers.ChoiceField(choices=["asc", "desc"], default="desc")


class OrderCollectionView(TerminalAPIView):
    @extend_schema(
        operation_id="order_create", request=OrderCreateIn, responses={201: OrderEnvelope}
    )
    def post(self, request):
        return idempotent(request, self, lambda: self._create(request))

    def _create(self, request):
        data = OrderCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        terminal = self.terminal
        form_options = None
        if terminal.integration_type == IntegrationType.ORDER_WITH_FORM:
            form_options = {
                "redirect_url": v.get("redirect_url"),
                "support_url": v.get("support_url"),
                "return_url": v.get("return_url"),
                "ip_address": request.META.get("REMOTE_ADDR"),
                "unique_amount": bool(v.get("unique_amount")),
            }
        order = services.order_create(
            terminal=terminal,
            client_order_id=v["client_order_id"],
            side=v["order_side"],
            amount=v["amount"],
            payment_method_id=v.get("payment_method_id"),
            method_type=v.get("method_type"),
            nspk_code=v.get("nspk_code"),
            customer_name=v.get("customer_name"),
            customer_account=v.get("customer_account"),
            customer_bank=v.get("customer_bank"),
            user_id=v.get("user_id"),
            webhook_url=v.get("webhook_url"),
            unique_amount=bool(v.get("unique_amount")),
            form_options=form_options,
        )
        return Response(render_order(order), status=201)

    @extend_schema(operation_id="order_list", parameters=[OrderListQuery], responses=OrderPage)
    def get(self, request):
        q = parse_query(OrderListQuery, request)
        now = timezone.now()
        end = q.get("end_date") or now
        start = q.get("start_date") or _day_before(end)
        if start > end:
            raise InvalidRequest(
                "start_date must not be after end_date",
                errors={"start_date": ["Must not be after end_date"]},
            )
        qs = selectors.order_list(
            terminal=self.terminal,
            start=start,
            end=end,
            payment_method_id=q.get("payment_method_id"),
            order_side=q.get("order_side"),
            status=q.get("status"),
            sort_by=q["sort_by"],
            descending=q["sort"] == "desc",
        )
        return Response(
            ok(orders=paginate(qs, page=q["page"], size=q["size"], render=render_orders))
        )


class SearchByClientIdQuery(serializers.Serializer):
    id = ClientOrderIdField()
    size = serializers.IntegerField(min_value=1, max_value=100, default=10)


class OrderSearchByClientIdView(TerminalAPIView):
    @extend_schema(
        operation_id="order_search_by_client_order_id",
        parameters=[SearchByClientIdQuery],
        responses=OrderPage,
    )
    def get(self, request):
        q = parse_query(SearchByClientIdQuery, request)
        rows = selectors.orders_by_client_order_id(
            terminal=self.terminal, client_order_id=q["id"], size=q["size"]
        )
        # Always one page: total counts what that page holds.
        page = {
            "total": len(rows),
            "page": 1,
            "size": q["size"],
            "pages": 1 if rows else 0,
            "items": render_orders(rows),
        }
        return Response(ok(orders=page))


class OrderDetailView(TerminalAPIView):
    @extend_schema(operation_id="order_get", responses=OrderEnvelope)
    def get(self, request, order_id):
        order = selectors.order_of_terminal(terminal=self.terminal, order_id=order_id)
        return Response(ok(order=render_order(order)))


class OrderCancelView(TerminalAPIView):
    @extend_schema(operation_id="order_cancel", request=None, responses=OrderEnvelope)
    def post(self, request, order_id):
        order = selectors.order_of_terminal(terminal=self.terminal, order_id=order_id)
        order = services.order_cancel(order_id=order.pk, actor=f"merchant:{self.terminal.pk}")
        return Response(ok(order=render_order(order)))


# --- Traders' API -----------------------------------------------------------------------


class TraderOrderListQuery(page_query(10)):
    status = serializers.ChoiceField(choices=OrderStatus.choices, required=False)
    order_side = serializers.ChoiceField(choices=Side.choices, required=False)


class TraderOrderListView(TraderAPIView):
    @extend_schema(
        operation_id="trader_order_list",
        parameters=[TraderOrderListQuery],
        responses=OrderPage,
    )
    def get(self, request):
        q = parse_query(TraderOrderListQuery, request)
        qs = selectors.trader_order_list(
            trader=self.trader, order_side=q.get("order_side"), status=q.get("status")
        )
        return Response(
            ok(orders=paginate(qs, page=q["page"], size=q["size"], render=render_orders))
        )


class TraderOrderConfirmView(TraderAPIView):
    @extend_schema(operation_id="trader_order_confirm", request=None, responses=OrderEnvelope)
    def post(self, request, order_id):
        order = selectors.order_of_trader(trader=self.trader, order_id=order_id)
        order = services.order_confirm(order_id=order.pk, actor=f"trader:{self.trader.pk}")
        return Response(ok(order=render_order(order)))


class TraderOrderCancelView(TraderAPIView):
    @extend_schema(operation_id="trader_order_cancel", request=None, responses=OrderEnvelope)
    def post(self, request, order_id):
        order = selectors.order_of_trader(trader=self.trader, order_id=order_id)
        order = services.order_cancel(order_id=order.pk, actor=f"trader:{self.trader.pk}")
        return Response(ok(order=render_order(order)))


class TraderOrderReceiptsView(TraderAPIView):
    @extend_schema(
        operation_id="trader_order_receipts",
        request=None,
        responses=inline_serializer(
            "ReceiptList",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "receipts": inline_serializer(
                    "Receipt",
                    {
                        "id": serializers.CharField(),
                        "content_type": serializers.CharField(),
                        "size": serializers.IntegerField(),
                        "uploaded_at": serializers.CharField(),
                    },
                    many=True,
                ),
            },
        ),
    )
    def get(self, request, order_id):
        order = selectors.order_of_trader(trader=self.trader, order_id=order_id)
        receipts = [render_receipt(r) for r in selectors.receipts_of_order(order=order)]
        return Response(ok(receipts=receipts))


class TraderOrderReceiptView(TraderAPIView):
    @extend_schema(
        operation_id="trader_order_receipt",
        request=None,
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
    )
    def get(self, request, order_id, receipt_id):
        order = selectors.order_of_trader(trader=self.trader, order_id=order_id)
        return receipt_response(selectors.receipt_of_order(order=order, receipt_id=receipt_id))
