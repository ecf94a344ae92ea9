"""OpenAPI pieces drf-spectacular cannot infer: our key authentication and the
error body every operation may answer with."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

ErrorBody = inline_serializer(
    "Error",
    {
        "success": serializers.BooleanField(default=False),
        "message": serializers.CharField(),
        "code": serializers.CharField(),
        "errors": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)


def page_schema(name: str, item: serializers.Serializer) -> serializers.Serializer:
    """The total/page/size/pages/items envelope every list answers with."""
    return inline_serializer(
        name,
        {
            "total": serializers.IntegerField(),
            "page": serializers.IntegerField(),
            "size": serializers.IntegerField(),
            "pages": serializers.IntegerField(),
            "items": item,
        },
    )


_COMMON_ERRORS = {
    "400": "Invalid request",
    "401": "Missing or invalid API key",
    "404": "Not found",
    "405": "Method not allowed",
    "429": "Too many requests",
}
_WRITE_ERRORS = {
    "402": "Insufficient funds",
    "403": "Forbidden",
    "409": "Conflict",
    "413": "File too large",
    "415": "Unsupported file type",
    "422": "Idempotency-Key reused with another body",
    "500": "No available traders that match order requirements",
    "503": "Service temporarily unavailable",
}


class ServiceAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        errors = dict(_COMMON_ERRORS)
        if self.method == "POST":
            errors.update(_WRITE_ERRORS)
        for status, description in errors.items():
            if status not in responses:
                responses[status] = self._get_response_for_code(ErrorBody, status)
                responses[status]["description"] = description
        return responses


class TerminalKeyScheme(OpenApiAuthenticationExtension):
    target_class = "paymentsvc.auth.TerminalKeyAuthentication"
    name = "TerminalKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "A terminal's API key",
        }


class TraderKeyScheme(OpenApiAuthenticationExtension):
    target_class = "paymentsvc.auth.TraderKeyAuthentication"
    name = "TraderKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "A trader's API key",
        }
