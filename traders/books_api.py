"""A trader's working deposit over the API: its balance and its ledger (traders.md §19)."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import TraderAPIView, ok, page_query, parse_query
from core.formats import iso_utc
from core.money import money_str
from core.pagination import paginate
from core.schema import page_schema
from finance.models import TRADER_TRANSACTION_TYPES, Balance, Transaction

ORDER_TYPES = {"order_buy", "order_sell", "reward"}


class TraderBalanceOut(serializers.Serializer):
    available = serializers.CharField()
    frozen = serializers.CharField()
    total = serializers.CharField()
    currency = serializers.CharField()


class TraderBalanceView(TraderAPIView):
    @extend_schema(
        operation_id="trader_balance",
        summary="The trader's working deposit",
        description="`frozen` holds the amounts of the trader's Pending Buy orders and of "
        "withdrawals awaiting approval; a Buy is matched only while `available` covers it.",
        responses=inline_serializer(
            "TraderBalanceResponse",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "balance": TraderBalanceOut(),
            },
        ),
    )
    def get(self, request):
        return Response(ok(balance=render_trader_balance(self.trader.pk)))


def render_trader_balance(trader_id) -> dict:
    """The trader's balance as the API gives it (and the cabinet's balance page shows it)."""
    balance = Balance.objects.filter(trader_id=trader_id).first()
    available, frozen = (balance.available, balance.frozen) if balance else (0, 0)
    return {
        "available": money_str(available),
        "frozen": money_str(frozen),
        "total": money_str(available + frozen),
        "currency": balance.currency if balance else "RUB",
    }


class TraderTransactionOut(serializers.Serializer):
    id = serializers.CharField()
    transaction_type = serializers.ChoiceField(choices=TRADER_TRANSACTION_TYPES)
    amount = serializers.CharField(help_text="Positive; the type says which way it moved")
    balance_after = serializers.CharField()
    order_id = serializers.CharField(allow_null=True)
    description = serializers.CharField()
    created_at = serializers.CharField()


class TraderTransactionsQuery(page_query(10)):
    transaction_type = serializers.ChoiceField(choices=TRADER_TRANSACTION_TYPES, required=False)
    order_id = serializers.UUIDField(required=False)


def render_trader_transactions(rows) -> list[dict]:
    return [
        {
            "id": str(t.id),
            "transaction_type": t.transaction_type,
            "amount": money_str(t.amount),
            "balance_after": money_str(t.balance_after),
            "order_id": t.reference if t.transaction_type in ORDER_TYPES else None,
            "description": t.client_description,
            "created_at": iso_utc(t.created_at),
        }
        for t in rows
    ]


class TraderTransactionsView(TraderAPIView):
    @extend_schema(
        operation_id="trader_transactions",
        summary="The trader's ledger, newest first",
        parameters=[TraderTransactionsQuery],
        responses=inline_serializer(
            "TraderTransactionPage",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "transactions": page_schema(
                    "TraderTransactionItems", TraderTransactionOut(many=True)
                ),
            },
        ),
    )
    def get(self, request):
        q = parse_query(TraderTransactionsQuery, request)
        qs = Transaction.objects.filter(balance__trader_id=self.trader.pk)
        if q.get("transaction_type"):
            qs = qs.filter(transaction_type=q["transaction_type"])
        if q.get("order_id"):
            qs = qs.filter(reference=str(q["order_id"]))
        qs = qs.order_by("-created_at", "-id")
        page = paginate(qs, page=q["page"], size=q["size"], render=render_trader_transactions)
        return Response(ok(transactions=page))
