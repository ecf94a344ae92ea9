"""A merchant's own withdrawals: POST/GET /api/v1/finance/withdrawals[/{id}] (traders.md §19)."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import TerminalAPIView, ok, page_query, parse_query
from core.error_codes import ErrorCode
from core.errors import NotFound
from core.fields import AmountField
from core.formats import parse_uuid
from core.idempotency import idempotent
from core.pagination import paginate
from core.schema import page_schema

from . import services
from .models import Settlement, SettlementKind, SettlementStatus


class TextField(serializers.CharField):
    """Free text sent as a JSON string (a number is not text)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class WithdrawalIn(serializers.Serializer):
    amount = AmountField()
    destination = TextField(min_length=1, max_length=255, help_text="Free text")
    comment = TextField(min_length=1, max_length=255, required=False, allow_null=True)


class WithdrawalOut(serializers.Serializer):
    id = serializers.CharField(help_text="Also the settlement's id on /admin/settlements/")
    amount = serializers.CharField()
    destination = serializers.CharField()
    comment = serializers.CharField(allow_null=True, help_text="null when none was given")
    status = serializers.ChoiceField(choices=SettlementStatus.choices)
    created_at = serializers.CharField()
    decided_at = serializers.CharField(allow_null=True)


WithdrawalEnvelope = inline_serializer(
    "WithdrawalResponse",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(),
        "withdrawal": WithdrawalOut(),
    },
)


def _withdrawals(terminal):
    return Settlement.objects.filter(
        terminal=terminal, kind=SettlementKind.MERCHANT_WITHDRAWAL
    ).order_by("-created_at", "-id")


def _render(rows) -> list[dict]:
    return [services.render_withdrawal(s) for s in rows]


class WithdrawalCollectionView(TerminalAPIView):
    @extend_schema(
        operation_id="withdrawal_create",
        summary="Ask for a withdrawal",
        description="The amount is frozen at once (402 `Insufficient funds ...` when "
        "`available` does not cover it) and waits for an operator's approval "
        "(`withdrawal.completed`) or rejection (`withdrawal.rejected`, unfrozen).",
        request=WithdrawalIn,
        responses={201: WithdrawalEnvelope},
    )
    def post(self, request):
        return idempotent(request, self, lambda: self._create(request))

    def _create(self, request):
        data = WithdrawalIn(data=request.data)
        data.is_valid(raise_exception=True)
        settlement = services.withdrawal_request(
            terminal=self.terminal,
            amount=data.validated_data["amount"],
            destination=data.validated_data["destination"],
            comment=data.validated_data.get("comment") or "",
        )
        return Response(ok(withdrawal=services.render_withdrawal(settlement)), status=201)

    @extend_schema(
        operation_id="withdrawal_list",
        parameters=[page_query(10)],
        responses=inline_serializer(
            "WithdrawalPage",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "withdrawals": page_schema("WithdrawalItems", WithdrawalOut(many=True)),
            },
        ),
    )
    def get(self, request):
        q = parse_query(page_query(10), request)
        page = paginate(_withdrawals(self.terminal), page=q["page"], size=q["size"], render=_render)
        return Response(ok(withdrawals=page))


class WithdrawalDetailView(TerminalAPIView):
    @extend_schema(operation_id="withdrawal_get", responses=WithdrawalEnvelope)
    def get(self, request, withdrawal_id):
        pk = parse_uuid(withdrawal_id)
        settlement = _withdrawals(self.terminal).filter(pk=pk).first() if pk else None
        if settlement is None:
            raise NotFound("Withdrawal not found", code=ErrorCode.NOT_FOUND)
        return Response(ok(withdrawal=services.render_withdrawal(settlement)))
