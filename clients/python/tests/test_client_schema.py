"""The client against the service's own OpenAPI document: every operation has a
method here, every parameter and body field is a keyword of it, and every field of
every result is declared on its model with a matching type. A schema change the
client misses fails this test."""

import copy
import inspect
import re
import types
import typing
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

import pytest
from django.test import Client as DjangoClient
from paymentsvc_client import Client, DeviceClient, TraderClient
from paymentsvc_client.models import Model
from paymentsvc_client.resources import OPERATIONS

MONEY = {
    "amount",
    "fee",
    "fixed_fee",
    "fee_amount",
    "paid_amount",
    "available",
    "frozen",
    "total",
    "balance_after",
    "min_amount",
    "max_amount",
    "daily_limit",
    "turnover_today",
    "turnover",
    "reward",
}
# Object fields of the form session that hold nested results (form_data.order_data).
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        response = DjangoClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _variants(node: dict) -> list[dict]:
    for key in ("oneOf", "anyOf", "allOf"):
        if key in node:
            return [v for v in node[key] if v.get("enum") != [None] and "NullEnum" not in str(v)]
    return [node]


def _strip_optional(tp):
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else tp
    return tp


def _check_type(schema: dict, where: str, name: str, tp, prop: dict, problems: list) -> None:
    tp = _strip_optional(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        # Declared as one of several types: fine when any of them fits.
        attempts = []
        for arm in typing.get_args(tp):
            attempt: list[str] = []
            _check_type(schema, where, name, arm, prop, attempt)
            attempts.append(attempt)
        if all(attempts):
            problems.extend(attempts[0])
        return
    variants = _variants(prop)
    prop = variants[0]
    if "$ref" in prop:
        target = _resolve(schema, prop)
        if "enum" in target:
            values = {v for v in target["enum"] if v is not None}
            if not (isinstance(tp, type) and issubclass(tp, StrEnum)):
                problems.append(f"{where}.{name}: enum in the schema, {tp} in the client")
            elif {e.value for e in tp} != values:
                problems.append(
                    f"{where}.{name}: values {sorted(values)} != {sorted(e.value for e in tp)}"
                )
            return
        if not (isinstance(tp, type) and issubclass(tp, Model)):
            problems.append(f"{where}.{name}: object in the schema, {tp} in the client")
            return
        check_model(schema, tp, target, problems, where=f"{where}.{name}")
        return
    kind = prop.get("type")
    if name in MONEY and kind in ("string", "number"):
        if tp is not Decimal:
            problems.append(f"{where}.{name}: money must be Decimal, is {tp}")
        return
    if kind == "string" and (prop.get("format") == "date-time" or name.endswith("_at")):
        if tp is not datetime:
            problems.append(f"{where}.{name}: a time must be datetime, is {tp}")
        return
    expected = {
        "string": (str,),
        "integer": (int,),
        "number": (Decimal,),
        "boolean": (bool,),
    }.get(kind)
    if kind == "array":
        if typing.get_origin(tp) is not list:
            problems.append(f"{where}.{name}: array in the schema, {tp} in the client")
            return
        (item,) = typing.get_args(tp)
        _check_type(schema, where, f"{name}[]", item, prop.get("items", {}), problems)
        return
    if kind == "object":
        if not (isinstance(tp, type) and (issubclass(tp, Model) or tp is dict)):
            problems.append(f"{where}.{name}: object in the schema, {tp} in the client")
        return
    if expected is None:
        problems.append(f"{where}.{name}: untyped in the schema ({prop})")
        return
    ok = tp in expected or (kind == "string" and isinstance(tp, type) and issubclass(tp, StrEnum))
    if not ok:
        problems.append(f"{where}.{name}: {kind} in the schema, {tp} in the client")


def check_model(schema: dict, model: type[Model], component: dict, problems: list, where=None):
    where = where or model.__name__
    fields = model.fields()
    for name, prop in _resolve(schema, component).get("properties", {}).items():
        if name not in fields:
            problems.append(f"{where}: no field {name!r} on {model.__name__}")
            continue
        _check_type(schema, where, name, fields[name], prop, problems)


def _method(operation):
    owner_name, _, dotted = operation.call.rpartition(":")
    owners = {"trader": TraderClient, "device": DeviceClient}
    owner = owners.get(owner_name, Client)("http://unused", "k")
    target = owner
    for part in dotted.split("."):
        target = getattr(target, part)
    return target


def _success_schema(op: dict) -> dict | None:
    for status in ("200", "201", "202"):
        content = op.get("responses", {}).get(status, {}).get("content", {})
        if "application/json" in content:
            return content["application/json"]["schema"]
    return None


def check_operation(schema: dict, http_method: str, path: str, op: dict) -> list[str]:
    label = f"{http_method.upper()} {path}"
    matches = [
        o for o in OPERATIONS.values() if o.method == http_method and _shape(o.path) == _shape(path)
    ]
    if not matches:
        return [f"{label}: no client method"]
    (operation,) = matches
    problems: list[str] = []
    method = _method(operation)
    accepted = set(inspect.signature(method).parameters)
    aliases = dict(operation.aliases)

    for param in op.get("parameters", []):
        if param.get("in") == "query":
            name = aliases.get(param["name"], param["name"])
            if name not in accepted:
                problems.append(f"{label}: query parameter {param['name']!r} not accepted")
    path_params = [p for p in op.get("parameters", []) if p.get("in") == "path"]
    positional = [
        p
        for p in inspect.signature(method).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if len(positional) < len(path_params):
        problems.append(f"{label}: path parameters are not all arguments")

    for content in op.get("requestBody", {}).get("content", {}).values():
        properties = _resolve(schema, content["schema"]).get("properties", {})
        for name, prop in properties.items():
            nested = _resolve(schema, prop) if "$ref" in prop else None
            names = nested.get("properties", {}) if nested else {name: prop}
            for field in names:
                if field not in accepted:
                    problems.append(f"{label}: body field {field!r} not accepted")

    result = _success_schema(op)
    if operation.model is None or result is None:
        return problems
    node = result
    if operation.unwrap:
        envelope = _resolve(schema, node).get("properties", {})
        node = envelope.get(operation.unwrap)
        if node is None and operation.unwrap_optional:
            node = result
        elif node is None:
            return problems + [f"{label}: the answer has no {operation.unwrap!r}"]
    if operation.page:
        node = _resolve(schema, node).get("properties", {}).get("items", {}).get("items")
        if node is None:
            return problems + [f"{label}: the answer is not a page"]
    if node.get("type") == "array":
        node = node["items"]
    check_model(schema, operation.model, node, problems)
    return problems


def check_client(schema: dict) -> list[str]:
    problems = []
    for path, item in schema["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for http_method, op in item.items():
            if http_method in HTTP_METHODS:
                problems += check_operation(schema, http_method, path, op)
    return problems


def test_every_operation_and_field_of_the_schema_is_covered_by_the_client(schema):
    assert check_client(schema) == []
    assert sum(1 for p in schema["paths"] if p.startswith("/api/v1/")) >= 13


def test_the_check_notices_what_the_client_would_miss(schema):
    changed = copy.deepcopy(schema)
    components = changed["components"]["schemas"]
    components["OrderOut"]["properties"]["refund_amount"] = {"type": "string"}
    # The order status enum, under whichever component name the schema gives it.
    _resolve(changed, components["OrderOut"]["properties"]["status"])["enum"].append("Refunded")
    components["BalanceOut"]["properties"]["frozen"] = {"type": "integer"}
    changed["paths"]["/api/v1/order/"]["get"]["parameters"].append(
        {"name": "min_amount", "in": "query", "schema": {"type": "string"}}
    )
    changed["paths"]["/api/v1/refunds"] = {"post": {"operationId": "refund_create"}}
    problems = "\n".join(check_client(changed))
    assert "no field 'refund_amount' on Order" in problems
    assert "Refunded" in problems
    assert "BalanceOut.frozen" in problems or "Balance.frozen" in problems
    assert "query parameter 'min_amount' not accepted" in problems
    assert "POST /api/v1/refunds: no client method" in problems


def test_the_events_api_as_the_contract_describes_it_would_be_covered(schema):
    changed = copy.deepcopy(schema)
    ref = "#/components/schemas/"
    changed["components"]["schemas"] |= {
        "EventTypeEnum": {
            "type": "string",
            "enum": [
                "order.created",
                "order.completed",
                "order.cancelled",
                "order.expired",
                "dispute.created",
                "dispute.processed",
            ],
        },
        "ActorEnum": {
            "type": "string",
            "enum": ["merchant", "trader", "operator", "payer", "system", "sandbox", "device"],
        },
        "EventData": {
            "type": "object",
            "properties": {
                "order": {"$ref": ref + "OrderOut"},
                "dispute": {"$ref": ref + "DisputeItemOut"},
            },
        },
        "EventOut": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "type": {"$ref": ref + "EventTypeEnum"},
                "created_at": {"type": "string", "format": "date-time"},
                "sequence": {"type": "integer"},
                "livemode": {"type": "boolean"},
                "actor": {"$ref": ref + "ActorEnum"},
                "data": {"$ref": ref + "EventData"},
            },
        },
        "EventPage": {
            "type": "object",
            "properties": {
                "success": {"type": "boolean"},
                "message": {"type": "string"},
                "events": {
                    "type": "object",
                    "properties": {
                        "items": {"type": "array", "items": {"$ref": ref + "EventOut"}},
                        "total": {"type": "integer"},
                    },
                },
            },
        },
    }
    query = ["page", "size", "type", "order_id", "created_after", "created_before"]
    changed["paths"]["/api/v1/events"] = {
        "get": {
            "parameters": [{"name": n, "in": "query", "schema": {"type": "string"}} for n in query],
            "responses": {
                "200": {"content": {"application/json": {"schema": {"$ref": ref + "EventPage"}}}}
            },
        }
    }
    assert check_client(changed) == []
