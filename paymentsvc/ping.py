from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import TerminalAPIView


class PingView(TerminalAPIView):
    """Authenticated and rate-limited like every merchant call, and nothing else: the
    ceiling the other endpoints are measured against, and a cheap key check for clients."""

    @extend_schema(
        operation_id="ping",
        responses=inline_serializer("Ping", {"success": serializers.BooleanField()}),
    )
    def get(self, request):
        return Response({"success": True})
