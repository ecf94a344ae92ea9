"""The OpenAPI document describes the device API: both operations, the X-Device-Token
scheme, the body's fields and the answer's statuses."""

import pytest
from django.test import Client


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return Client().get("/api/schema/", {"format": "json"}).json()


def test_both_operations_use_the_device_token(schema):
    scheme = schema["components"]["securitySchemes"]["DeviceToken"]
    assert (scheme["in"], scheme["name"]) == ("header", "X-Device-Token")
    for path in ("/api/v1/device/notifications", "/api/v1/device/heartbeat"):
        operation = schema["paths"][path]["post"]
        assert operation["security"] == [{"DeviceToken": []}]
        assert "200" in operation["responses"] and "401" in operation["responses"]


def test_the_notification_body_and_answer_are_described(schema):
    components = schema["components"]["schemas"]
    body = components["NotificationInRequest"]
    assert set(body["properties"]) == {"id", "source", "received_at", "title", "text"}
    assert set(body["required"]) == {"id", "source", "received_at", "text"}
    statuses = components["DeviceNotificationStatusEnum"]["enum"]
    assert statuses == ["matched", "unmatched", "ambiguous", "ignored", "duplicate"]
