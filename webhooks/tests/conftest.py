"""Fixtures for the webhook tests: a real local receiver and a signed-in operator."""

import pytest
from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from core.testing import operator_user_create
from webhooks.delivery import delivery_attempt
from webhooks.models import WebhookDelivery

from .receiver import Receiver

SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="


@pytest.fixture
def world(db):
    """A test's own terminal, method and trader (factories, not the demo set)."""
    from .world import World

    return World.build(webhook_secret=SECRET)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def operator(db) -> Client:
    """An operator (the demo set's user name and password), signed in through the
    admin's login form."""
    operator_user_create()
    client = Client()
    response = client.post(
        "/admin/login/",
        {"username": "operator", "password": "operator-demo-password", "next": "/admin/"},
    )
    assert response.status_code == 302, response.content[:300]
    return client


def event_page(event_id: str) -> str:
    return reverse("admin:webhooks_webhookevent_change", args=[quote(event_id)])


def make_due(delivery):
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now(), locked_until=None
    )


def deliver_all():
    for delivery in WebhookDelivery.objects.filter(state="pending").order_by("pk"):
        make_due(delivery)
        delivery_attempt(delivery_id=delivery.pk)


def headers_of(request) -> dict:
    """A received request's headers, names in lower case as verifiers expect them."""
    return {k.lower(): v for k, v in request["headers"].items()}
