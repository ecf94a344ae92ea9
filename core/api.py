"""Building blocks every API view shares: authentication, throttling, query parsing,
pagination and the success wrappers."""

from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.views import APIView

from .auth import TerminalKeyAuthentication, TraderKeyAuthentication
from .error_codes import ErrorCode
from .errors import ServiceError
from .formats import NUL_MESSAGE, holds_nul
from .kept_fields import KeptFieldsSerializer
from .throttling import ApiKeyRateThrottle


class HasPrincipal(BasePermission):
    def has_permission(self, request, view):
        return bool(getattr(request, "user", None) and request.user.is_authenticated)


class TerminalAPIView(APIView):
    authentication_classes = [TerminalKeyAuthentication]
    permission_classes = [HasPrincipal]
    throttle_classes = [ApiKeyRateThrottle]

    @property
    def terminal(self):
        return self.request.user.terminal


class TraderAPIView(APIView):
    authentication_classes = [TraderKeyAuthentication]
    permission_classes = [HasPrincipal]
    throttle_classes = [ApiKeyRateThrottle]

    @property
    def trader(self):
        return self.request.user.trader


class StrictBooleanField(serializers.BooleanField):
    """Accepts true/false/1/0 in any case; anything else is a 400."""

    TRUE_VALUES = {"true", "True", "TRUE", "1", 1}
    FALSE_VALUES = {"false", "False", "FALSE", "0", 0}
    NULL_VALUES = set()


def page_query(default_size: int) -> type[serializers.Serializer]:
    class PageQuery(KeptFieldsSerializer):
        page = serializers.IntegerField(min_value=1, default=1)  # past the end: no items
        size = serializers.IntegerField(min_value=1, max_value=100, default=default_size)

    return PageQuery


class DateRangeMixin(serializers.Serializer):
    # OpenAPI cannot relate two parameters; the rule is written where clients read it.
    start_date = serializers.DateTimeField(
        required=False, help_text="Start of the period; not after end_date (400 otherwise)."
    )
    end_date = serializers.DateTimeField(
        required=False, help_text="End of the period; not before start_date (400 otherwise)."
    )

    def validate(self, attrs):
        attrs = super().validate(attrs)
        period_check(attrs.get("start_date"), attrs.get("end_date"))
        return attrs


def period_check(start, end) -> None:
    """The one start-after-end check of a list's period (either end may be absent);
    answered as a 400 on start_date."""
    if start and end and start > end:
        raise serializers.ValidationError({"start_date": ["start_date must not be after end_date"]})


def parse_query(serializer_class, request, *, many_fields: tuple[str, ...] = ()) -> dict:
    """The query parameters `serializer_class` names, validated. A parameter it does not
    name is ignored whatever it holds; a NUL in one it reads is 400 (the database
    cannot hold one)."""
    data = {}
    read = serializer_class().fields
    for key in request.query_params:
        if key not in read:
            continue
        if holds_nul(request.query_params.getlist(key)):
            raise ServiceError(NUL_MESSAGE, code=ErrorCode.MALFORMED_REQUEST)
        if key in many_fields:
            values = []
            for raw in request.query_params.getlist(key):
                # An empty item ("", "SBP,") is refused by the field like any unknown value.
                values.extend(raw.split(","))
            data[key] = values
        else:
            data[key] = request.query_params.get(key)
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def ok(**payload) -> dict:
    return {"success": True, "message": "OK", **payload}
