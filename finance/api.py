from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import (
    DateRangeMixin,
    StrictBooleanField,
    TerminalAPIView,
    ok,
    page_query,
    paginate,
    parse_query,
)
from core.formats import iso_utc
from core.money import money_number, money_str
from core.schema import page_schema

from . import selectors
from .models import MERCHANT_TRANSACTION_TYPES, Balance, MethodType


def render_balance(balance) -> dict:
    return {
        "available": money_str(balance.available),
        "frozen": money_str(balance.frozen),
        "total": money_str(balance.total),
        "id": str(balance.id),
        "currency": balance.currency,
    }


class BalanceOut(serializers.Serializer):
    available = serializers.CharField()
    frozen = serializers.CharField()
    total = serializers.CharField()
    id = serializers.CharField()
    currency = serializers.CharField()


class BalanceView(TerminalAPIView):
    @extend_schema(
        operation_id="finance_balance",
        responses=inline_serializer(
            "BalanceResponse",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "deposit": BalanceOut(),
            },
        ),
    )
    def get(self, request):
        balance = Balance.objects.get(terminal=self.terminal)
        return Response(ok(deposit=render_balance(balance)))


class TransactionsQuery(page_query(20), DateRangeMixin):
    transaction_type = serializers.ChoiceField(choices=MERCHANT_TRANSACTION_TYPES, required=False)


class TerminalRefOut(serializers.Serializer):
    id = serializers.CharField()
    currency = serializers.CharField()
    name = serializers.CharField()


class TransactionOut(serializers.Serializer):
    id = serializers.CharField()
    deposit_id = serializers.CharField()
    amount = serializers.CharField()
    transaction_type = serializers.ChoiceField(choices=MERCHANT_TRANSACTION_TYPES)
    created_at = serializers.DateTimeField()
    terminal = TerminalRefOut()
    client_description = serializers.CharField()
    client_id = serializers.CharField()
    balance_after = serializers.CharField()


class TransactionsView(TerminalAPIView):
    @extend_schema(
        operation_id="finance_transactions",
        parameters=[TransactionsQuery],
        responses=page_schema("TransactionPage", TransactionOut(many=True)),
    )
    def get(self, request):
        query = parse_query(TransactionsQuery, request)
        terminal = self.terminal
        terminal_ref = {
            "id": str(terminal.id),
            "currency": terminal.currency,
            "name": terminal.name,
        }

        def render(rows):
            return [
                {
                    "id": str(t.id),
                    "deposit_id": str(t.balance_id),
                    "amount": money_str(t.amount),
                    "transaction_type": t.transaction_type,
                    "created_at": iso_utc(t.created_at),
                    "terminal": terminal_ref,
                    "client_description": t.client_description,
                    "client_id": str(terminal.client_id),
                    "balance_after": money_str(t.balance_after),
                }
                for t in rows
            ]

        qs = selectors.transactions_for(
            terminal=terminal,
            transaction_type=query.get("transaction_type"),
            start=query.get("start_date"),
            end=query.get("end_date"),
        )
        return Response(paginate(qs, page=query["page"], size=query["size"], render=render))


class PaymentMethodsQuery(serializers.Serializer):
    active = StrictBooleanField(default=False)
    method_type = serializers.ListField(
        child=serializers.ChoiceField(choices=MethodType.choices), required=False, allow_empty=True
    )


class RangeOut(serializers.Serializer):
    fee_side = serializers.CharField()
    currency = serializers.CharField()
    min_amount = serializers.FloatField()
    max_amount = serializers.FloatField()
    fee = serializers.FloatField()
    fixed_fee = serializers.FloatField(allow_null=True)


class PaymentMethodOut(serializers.Serializer):
    method_id = serializers.CharField()
    method_name = serializers.CharField()
    method_type = serializers.CharField()
    method_currency = serializers.CharField()
    nspk_code = serializers.CharField(allow_null=True)
    active = serializers.BooleanField()
    ranges = RangeOut(many=True)


def render_method(method) -> dict:
    return {
        "method_id": str(method.id),
        "method_name": method.name,
        "method_type": method.method_type,
        "method_currency": method.currency,
        "nspk_code": method.nspk_code,
        "active": method.is_active,
        "ranges": [
            {
                "fee_side": r.side,
                "currency": r.currency,
                "min_amount": money_number(r.min_amount),
                "max_amount": money_number(r.max_amount),
                "fee": float(r.fee),
                "fixed_fee": money_number(r.fixed_fee) if r.fixed_fee else None,
            }
            for r in method.ranges.all()
        ],
    }


_ONE_TYPE = "(?:" + "|".join(MethodType.values) + ")"
METHOD_TYPES_PATTERN = f"^{_ONE_TYPE}(?:,{_ONE_TYPE})*$"


class PaymentMethodsView(TerminalAPIView):
    @extend_schema(
        operation_id="finance_payment_methods",
        parameters=[
            OpenApiParameter("active", bool, description="Only active methods"),
            OpenApiParameter(
                "method_type",
                str,
                many=True,
                explode=True,
                pattern=METHOD_TYPES_PATTERN,
                description="Method types; repeat the parameter or separate with commas "
                f"({', '.join(MethodType.values)})",
            ),
        ],
        responses=inline_serializer(
            "PaymentMethodsResponse",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "payment_methods": PaymentMethodOut(many=True),
            },
        ),
    )
    def get(self, request):
        query = parse_query(PaymentMethodsQuery, request, many_fields=("method_type",))
        methods = selectors.terminal_methods(
            terminal=self.terminal,
            active_only=query["active"],
            method_types=query.get("method_type"),
        )
        return Response(ok(payment_methods=[render_method(m) for m in methods]))


class TerminalOut(serializers.Serializer):
    id = serializers.CharField(help_text="The account a settlement names")
    name = serializers.CharField()
    livemode = serializers.BooleanField()
    integration_type = serializers.CharField()
    currency = serializers.CharField()


class TerminalView(TerminalAPIView):
    @extend_schema(
        operation_id="terminal",
        summary="The terminal the key belongs to",
        responses=inline_serializer(
            "TerminalResponse",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "terminal": TerminalOut(),
            },
        ),
    )
    def get(self, request):
        t = self.terminal
        return Response(
            ok(
                terminal={
                    "id": str(t.pk),
                    "name": t.name,
                    "livemode": t.livemode,
                    "integration_type": t.integration_type,
                    "currency": t.currency,
                }
            )
        )
