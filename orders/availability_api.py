"""`POST /api/v1/order/availability`: would an order like this find a trader now, and
at what amount and fee. The body is an order's (without client_order_id), checked as
creation checks it; nothing is created, reserved or frozen."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import TerminalAPIView, ok
from core.money import money_str

from . import services
from .api import OrderCreateIn, OrderCreateInScheme


class OrderAvailabilityIn(OrderCreateIn):
    client_order_id = None


class OrderAvailabilityInScheme(OrderCreateInScheme):
    target_class = OrderAvailabilityIn


AvailabilityResponse = inline_serializer(
    "OrderAvailabilityResponse",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(),
        "available": serializers.BooleanField(),
        "method_id": serializers.CharField(),
        "amount": serializers.CharField(),
        "fee_amount": serializers.CharField(),
    },
)


class OrderAvailabilityView(TerminalAPIView):
    @extend_schema(
        operation_id="order_availability",
        request=OrderAvailabilityIn,
        responses=AvailabilityResponse,
        description="Whether an order with this body would find a trader now (`available`), "
        "the method it would get (`method_id`), at what amount (with `unique_amount`, "
        "possibly above the one asked) and fee. It runs creation's checks, so a body "
        "creation would refuse gets the same 4xx; it creates, reserves and freezes "
        "nothing. When no trader is free: `available` false, with the method, amount and "
        "fee asked for.",
    )
    def post(self, request):
        data = OrderAvailabilityIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        answer = services.order_availability(
            terminal=self.terminal,
            side=v["order_side"],
            amount=v["amount"],
            payment_method_id=v.get("payment_method_id"),
            method_type=v.get("method_type"),
            nspk_code=v.get("nspk_code"),
            customer_account=v.get("customer_account"),
            customer_bank=v.get("customer_bank"),
            user_id=v.get("user_id"),
            unique_amount=bool(v.get("unique_amount")),
        )
        return Response(
            ok(
                available=answer.available,
                method_id=str(answer.method.pk),
                amount=money_str(answer.amount),
                fee_amount=money_str(answer.fee_amount),
            )
        )
