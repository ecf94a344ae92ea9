"""The traders' API: the orders assigned to a trader, confirming or cancelling them, receipts."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import TraderAPIView, ok, page_query, paginate, parse_query
from finance.models import Side
from orders import selectors
from orders.api import order_envelopes
from orders.models import OrderStatus
from orders.receipts import receipt_response, render_receipt
from orders.render import render_trader_order, render_trader_orders

from . import services


class TraderOrderOut(serializers.Serializer):
    """What a trader needs to pay or receive; nothing of the merchant's."""

    id = serializers.CharField()
    order_side = serializers.ChoiceField(choices=Side.choices)
    currency = serializers.CharField()
    amount = serializers.CharField()
    paid_amount = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=OrderStatus.choices)
    method_id = serializers.CharField()
    method_name = serializers.CharField()
    method_type = serializers.CharField()
    requisite_id = serializers.CharField(allow_null=True)
    holder_name = serializers.CharField()
    holder_account = serializers.CharField()
    customer_account = serializers.CharField(allow_null=True, help_text="Sell only")
    customer_bank = serializers.CharField(allow_null=True, help_text="Sell only")
    created_at = serializers.CharField()
    updated_at = serializers.CharField()
    expires_at = serializers.CharField()


TraderOrderEnvelope, TraderOrderPage = order_envelopes("TraderOrder", TraderOrderOut)


class TraderOrderListQuery(page_query(10)):
    status = serializers.ChoiceField(choices=OrderStatus.choices, required=False)
    order_side = serializers.ChoiceField(choices=Side.choices, required=False)


class TraderOrderListView(TraderAPIView):
    @extend_schema(
        operation_id="trader_order_list",
        parameters=[TraderOrderListQuery],
        responses=TraderOrderPage,
    )
    def get(self, request):
        q = parse_query(TraderOrderListQuery, request)
        qs = selectors.trader_order_list(
            trader=self.trader, order_side=q.get("order_side"), status=q.get("status")
        )
        return Response(
            ok(orders=paginate(qs, page=q["page"], size=q["size"], render=render_trader_orders))
        )


class TraderOrderConfirmView(TraderAPIView):
    @extend_schema(operation_id="trader_order_confirm", request=None, responses=TraderOrderEnvelope)
    def post(self, request, order_id):
        order = selectors.order_of_trader(trader=self.trader, order_id=order_id)
        order = services.trader_order_confirm(trader=self.trader, order=order)
        return Response(ok(order=render_trader_order(order)))


class TraderOrderCancelView(TraderAPIView):
    @extend_schema(operation_id="trader_order_cancel", request=None, responses=TraderOrderEnvelope)
    def post(self, request, order_id):
        order = selectors.order_of_trader(trader=self.trader, order_id=order_id)
        order = services.trader_order_decline(trader=self.trader, order=order)
        return Response(ok(order=render_trader_order(order)))


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
        responses={
            (200, "image/*"): OpenApiTypes.BINARY,
            (200, "application/pdf"): OpenApiTypes.BINARY,
        },
        description="The receipt's bytes as a download (`Content-Disposition: attachment`), "
        "with the content type judged from them when it was uploaded: an image or a PDF.",
    )
    def get(self, request, order_id, receipt_id):
        order = selectors.order_of_trader(trader=self.trader, order_id=order_id)
        return receipt_response(selectors.receipt_of_order(order=order, receipt_id=receipt_id))
