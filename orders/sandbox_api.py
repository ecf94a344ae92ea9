"""The sandbox's endpoint: a sandbox terminal drives its own orders through the
lifecycle a trader or the clock would (docs/sandbox.md)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api import TerminalAPIView, ok
from core.error_codes import ErrorCode
from core.errors import Forbidden
from core.fields import AmountField

from . import selectors, services
from .api import OrderEnvelope
from .render import render_order


class SimulateIn(serializers.Serializer):
    action = serializers.ChoiceField(
        choices=[action.value for action in services.SandboxAction],
        help_text="complete: as if the trader confirmed; cancel: as if the trader "
        "declined; expire: as if the order's time ran out",
    )
    paid_amount = AmountField(
        required=False,
        help_text="With complete: the amount that arrived (default: the order's amount). "
        "A Buy's fee is charged on it; a Sell is paid out in full.",
    )


class SandboxOrderSimulateView(TerminalAPIView):
    @extend_schema(
        operation_id="sandbox_order_simulate",
        summary="Simulate a trader or the clock on a sandbox order",
        description="Sandbox terminals only (a live terminal's key: 403 `sandbox_only`). "
        "The order must be Pending (else 409) and the caller's (else 404). Events carry "
        "actor `sandbox`. Rules the schema cannot state, each 400: `paid_amount` only with "
        "`complete`; above zero and at most twice the order's amount, as a trader's confirm "
        "takes it; on a Sell, equal to the order's amount.",
        request=SimulateIn,
        responses={200: OrderEnvelope},
    )
    def post(self, request, order_id):
        if self.terminal.livemode:
            raise Forbidden(code=ErrorCode.SANDBOX_ONLY)
        data = SimulateIn(data=request.data)
        data.is_valid(raise_exception=True)
        order = selectors.order_of_terminal(terminal=self.terminal, order_id=order_id)
        order = services.order_simulate(
            order=order,
            action=data.validated_data["action"],
            paid_amount=data.validated_data.get("paid_amount"),
        )
        return Response(ok(order=render_order(order)))
