"""OpenAPI pieces drf-spectacular cannot infer: our key authentication and the
error body every operation may answer with."""

import re

from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from .formats import HTTP_URL_PATTERN

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


def _page_fields(item: serializers.Serializer) -> dict:
    return {
        "total": serializers.IntegerField(),
        "page": serializers.IntegerField(),
        "size": serializers.IntegerField(),
        "pages": serializers.IntegerField(),
        "items": item,
    }


def page_schema(name: str, item: serializers.Serializer) -> serializers.Serializer:
    """The total/page/size/pages/items envelope every list answers with."""
    return inline_serializer(name, _page_fields(item))


def capped_page_schema(
    name: str, item: serializers.Serializer, *, rows: str, cap_setting: str
) -> serializers.Serializer:
    """The envelope of a list counted up to a cap (core.pagination): page_schema's
    fields, then `has_more` and `total_is_estimate`."""
    return inline_serializer(
        name,
        {
            **_page_fields(item),
            "has_more": serializers.BooleanField(
                help_text=f"More {rows} follow this page (in the direction of travel)."
            ),
            "total_is_estimate": serializers.BooleanField(
                help_text=f"The list holds more than {cap_setting} {rows} (default 1,000): "
                "`total` is then a lower bound (the cap, or what the page itself shows)."
            ),
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
    target_class = "core.auth.TerminalKeyAuthentication"
    name = "TerminalKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "A terminal's API key",
        }


class TraderKeyScheme(OpenApiAuthenticationExtension):
    target_class = "core.auth.TraderKeyAuthentication"
    name = "TraderKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "A trader's API key",
        }


# No string the API takes may hold a NUL character (the database cannot store one):
# every free-text string in the schema says so with a pattern.
NO_NUL_PATTERN = r"^[^\x00]*$"


# Text that holds something other than whitespace (and no NUL): what
# core.fields.TrimmedTextField accepts once it has trimmed the value.
# The whitespace is spelled out as Python's str.strip() (DRF's trimming) reads it: `\s`
# reads differently in Python and in the schema's ECMA 262 dialect (\x1c-\x1f).
_WHITESPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK_PATTERN = rf"^[^\x00]*[^\x00{_WHITESPACE}][^\x00]*$"


class TrimmedTextFieldScheme(OpenApiSerializerFieldExtension):
    target_class = "core.fields.TrimmedTextField"

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        schema["pattern"] = NOT_BLANK_PATTERN
        schema["description"] = " ".join(
            filter(None, [schema.get("description"), "Blank (only whitespace) is 400."])
        )
        return schema


class HttpUrlFieldScheme(OpenApiSerializerFieldExtension):
    """An http(s) URL field (core.fields.HttpUrlField, and FormUrlField, which may be
    empty): what it takes, as core.formats.HTTP_URL_PATTERN describes it. No `format:
    uri`: the service takes what that format refuses (a path or a host in letters other
    than ASCII), and the pattern alone says exactly what is taken."""

    target_class = "core.fields.HttpUrlField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        url = {"pattern": HTTP_URL_PATTERN, "maxLength": self.target.url_max_length}
        if not self.target.allow_blank:
            return {"type": "string", "nullable": True, **url, "description": "An http(s) URL."}
        return {
            "type": "string",
            "nullable": True,
            "anyOf": [url, {"maxLength": 0}],
            "description": "An http(s) URL; empty or null: none.",
        }


def _forbid_nul(node) -> None:
    if isinstance(node, dict):
        if (
            node.get("type") == "string"
            and not {"enum", "pattern", "format"} & node.keys()
            and node.get("readOnly") is not True
        ):
            node["pattern"] = NO_NUL_PATTERN
        for value in node.values():
            _forbid_nul(value)
    elif isinstance(node, list):
        for value in node:
            _forbid_nul(value)


def forbid_nul_hook(result, generator, request, public):
    """drf-spectacular postprocessing hook: NUL-free strings in requests (parameters
    and request bodies; response components are left as they are)."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if isinstance(operation, dict):
                _forbid_nul(operation.get("parameters", []))
                _forbid_nul(operation.get("requestBody", {}))
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):
            _forbid_nul(component)
    return result


IDEMPOTENT_OPERATIONS = {"order_create", "form_create", "dispute_create", "withdrawal_create"}
REPLAYED_HEADER = {
    "Idempotent-Replayed": {
        "schema": {"type": "string", "enum": ["true"]},
        "description": "Present on a repeat with the same Idempotency-Key and body: the "
        "first request's stored response, status and body byte for byte.",
    }
}
RETRY_AFTER_HEADER = {
    "Retry-After": {
        "schema": {"type": "integer", "minimum": 0},
        "description": "Seconds until the request rate allows another request (sent "
        "with the request-rate 429; the anti-fraud 429 has none).",
    }
}
IDEMPOTENCY_NOTE = (
    "\n\nAn optional `Idempotency-Key` request header (1 to 255 characters, kept 24 "
    "hours per terminal) makes a repeat return the first response with "
    "`Idempotent-Replayed: true`; the same key with another body is 422 "
    "`idempotency_key_reused`, a repeat while the first runs is 409 "
    "`idempotency_in_flight`."
)


# What a creation's 201 leads to (OpenAPI links): the order it made can be read and
# cancelled, a form session and a dispute can be found by their ids.
LINKS = {
    "order_create": {
        "GetOrder": {"operationId": "order_get", "parameters": {"order_id": "$response.body#/id"}},
        "CancelOrder": {
            "operationId": "order_cancel",
            "parameters": {"order_id": "$response.body#/id"},
        },
        "FindOrderByClientOrderId": {
            "operationId": "order_search_by_client_order_id",
            "parameters": {"id": "$response.body#/client_order_id"},
        },
    },
    "form_create": {
        "SearchFormSession": {
            "operationId": "form_search",
            "parameters": {"session_id": "$response.body#/form_data/session_id"},
        }
    },
    "dispute_create": {
        "SearchDispute": {
            "operationId": "dispute_search",
            "parameters": {"dispute_id": "$response.body#/dispute_id"},
        }
    },
}


def response_headers_hook(result, generator, request, public):
    """drf-spectacular postprocessing hook: the response headers the API sends and
    the links from what a creation returns to the operations that use it."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if not isinstance(operation, dict):
                continue
            responses = operation.get("responses", {})
            if operation.get("operationId") in IDEMPOTENT_OPERATIONS:
                operation["description"] = operation.get("description", "") + IDEMPOTENCY_NOTE
                for response in responses.values():
                    response.setdefault("headers", {}).update(REPLAYED_HEADER)
            links = LINKS.get(operation.get("operationId"))
            if links and "201" in responses:
                responses["201"]["links"] = links
            if "429" in responses:
                responses["429"].setdefault("headers", {}).update(RETRY_AFTER_HEADER)
    return result


def any_case_pattern(values) -> str:
    """A pattern for `values` in any letter case, surrounding spaces allowed (how the
    server reads enum-like strings such as button_name)."""
    alternatives = "|".join(
        "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in value)
        for value in values
    )
    return rf"^\s*(?:{alternatives})\s*$"
