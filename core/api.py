"""Building blocks every API view shares: authentication, throttling, query parsing,
pagination and the success wrappers."""

import math
import threading

from django.db.models import QuerySet
from django.utils.functional import cached_property
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.views import APIView

from .auth import TerminalKeyAuthentication, TraderKeyAuthentication
from .error_codes import ErrorCode
from .errors import ServiceError
from .formats import NUL_MESSAGE, holds_nul
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


class KeptFieldsSerializer(serializers.Serializer):
    """A request serializer whose fields are made once per thread and lent to each new
    instance, instead of deep-copied for every request (most of a small serializer's
    cost). For bodies and queries validated once and dropped: a newer instance of the
    same class in the same thread takes the fields over."""

    _kept = threading.local()

    @cached_property
    def fields(self):
        kept = self._kept.__dict__.setdefault("by_class", {})
        fields = kept.get(type(self))
        if fields is None:
            fields = kept[type(self)] = super().fields
        else:
            fields.serializer = self
            for field in fields.values():
                field.parent = self
        return fields


class StrictBooleanField(serializers.BooleanField):
    """Accepts true/false/1/0 in any case; anything else is a 400."""

    TRUE_VALUES = {"true", "True", "TRUE", "1", 1}
    FALSE_VALUES = {"false", "False", "FALSE", "0", 0}
    NULL_VALUES = set()


def page_query(default_size: int) -> type[serializers.Serializer]:
    class PageQuery(KeptFieldsSerializer):
        page = serializers.IntegerField(min_value=1, default=1, max_value=10**9)
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
        start, end = attrs.get("start_date"), attrs.get("end_date")
        if start and end and start > end:
            raise serializers.ValidationError(
                {"start_date": ["start_date must not be after end_date"]}
            )
        return attrs


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


def paginate(queryset: QuerySet, *, page: int, size: int, render) -> dict:
    offset = (page - 1) * size
    rows = list(queryset[offset : offset + size])
    # A first page that is not full already says how many there are: no COUNT then.
    total = len(rows) if page == 1 and len(rows) < size else queryset.count()
    return {
        "total": total,
        "page": page,
        "size": size,
        "pages": math.ceil(total / size),
        "items": render(rows),
    }


def ok(**payload) -> dict:
    return {"success": True, "message": "OK", **payload}
