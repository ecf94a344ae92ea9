"""The trader's own account over the API: who it is, its requisites and their switch,
its statistics (section 18)."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import KeptFieldsSerializer, TraderAPIView, ok, parse_query
from finance.models import MethodType
from orders.models import RequisiteDisabledReason

from . import selectors, services
from .render import render_requisite, render_stats, render_trader


def _money(help_text: str, *, nullable: bool = False) -> serializers.CharField:
    return serializers.CharField(allow_null=nullable, help_text=f"Money string. {help_text}")


class TraderOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    sandbox = serializers.BooleanField()


class TraderRequisiteOut(serializers.Serializer):
    id = serializers.CharField()
    method_id = serializers.CharField()
    method_name = serializers.CharField()
    method_type = serializers.ChoiceField(choices=MethodType.choices)
    nspk_code = serializers.CharField(allow_null=True)
    holder_name = serializers.CharField()
    account = serializers.CharField()
    is_active = serializers.BooleanField()
    disabled_reason = serializers.ChoiceField(
        choices=RequisiteDisabledReason.choices,
        allow_null=True,
        help_text="Null while on; else who switched it off",
    )
    min_amount = _money("Null: no lower bound of its own", nullable=True)
    max_amount = _money("Null: no upper bound of its own", nullable=True)
    max_pending = serializers.IntegerField(allow_null=True, help_text="Null: no cap")
    daily_limit = _money("Turnover allowed per UTC day")
    pending = serializers.IntegerField(help_text="Its Pending orders now")
    turnover_today = _money("This UTC day's turnover")
    auto_disable_after = serializers.IntegerField(
        allow_null=True,
        help_text="Switched off after this many expiries by the clock in a row; null: never",
    )


class StatsOut(serializers.Serializer):
    period = serializers.ChoiceField(choices=list(selectors.PERIODS))
    orders = serializers.IntegerField(help_text="Orders created on its requisites in the period")
    completed = serializers.IntegerField(help_text="Those of them Completed")
    conversion = serializers.FloatField(
        help_text="Percent (one decimal) Completed of those that ended; 0 when none ended"
    )
    turnover = _money("Sum of their paid_amount")
    reward = _money("The trader's rewards on them")


class StatsQuery(KeptFieldsSerializer):
    period = serializers.ChoiceField(choices=list(selectors.PERIODS), default="24h")


def _envelope(name: str, **fields) -> serializers.Serializer:
    return inline_serializer(
        name,
        {"success": serializers.BooleanField(), "message": serializers.CharField(), **fields},
    )


RequisiteEnvelope = _envelope("TraderRequisiteResponse", requisite=TraderRequisiteOut())


class TraderMeView(TraderAPIView):
    @extend_schema(
        operation_id="trader_me",
        request=None,
        responses=_envelope("TraderMeResponse", trader=TraderOut()),
        description="The trader this key belongs to; its `id` is what settlements name.",
    )
    def get(self, request):
        return Response(ok(trader=render_trader(self.trader)))


class TraderRequisiteListView(TraderAPIView):
    @extend_schema(
        operation_id="trader_requisite_list",
        request=None,
        responses=_envelope("TraderRequisiteList", requisites=TraderRequisiteOut(many=True)),
    )
    def get(self, request):
        figures = selectors.trader_requisites(trader=self.trader)
        return Response(ok(requisites=[render_requisite(f) for f in figures]))


class _SwitchView(TraderAPIView):
    on: bool

    def post(self, request, requisite_id):
        # Only the trader's own requisite: another's is not found (404).
        figures = selectors.requisite_figures(trader=self.trader, requisite_id=requisite_id)
        services.trader_requisite_switch(
            trader=self.trader, requisite_id=figures.requisite.pk, on=self.on
        )
        figures = selectors.requisite_figures(trader=self.trader, requisite_id=requisite_id)
        return Response(ok(requisite=render_requisite(figures)))


class TraderRequisiteEnableView(_SwitchView):
    on = True

    @extend_schema(
        operation_id="trader_requisite_enable",
        request=None,
        responses=RequisiteEnvelope,
        description="Switch the requisite on (and start its count of expiries again). "
        "Another trader's requisite: 404. One an operator switched off: 409 "
        "`disabled_by_operator`.",
    )
    def post(self, request, requisite_id):
        return super().post(request, requisite_id)


class TraderRequisiteDisableView(_SwitchView):
    on = False

    @extend_schema(
        operation_id="trader_requisite_disable",
        request=None,
        responses=RequisiteEnvelope,
        description="Switch the requisite off (`disabled_reason` `trader`, unless it is "
        "already off for another reason). Another trader's requisite: 404.",
    )
    def post(self, request, requisite_id):
        return super().post(request, requisite_id)


class TraderStatsView(TraderAPIView):
    @extend_schema(
        operation_id="trader_stats",
        parameters=[StatsQuery],
        responses=_envelope("TraderStatsResponse", stats=StatsOut()),
    )
    def get(self, request):
        q = parse_query(StatsQuery, request)
        stats = selectors.trader_stats(trader=self.trader, period=q["period"])
        return Response(ok(stats=render_stats(stats)))
