"""The order's and the dispute's admin pages show the order's history: each event with
its actor, each delivery with its attempts, and a resend button that works."""

import re

from django.urls import reverse

from webhooks.delivery import delivery_attempt
from webhooks.models import WebhookDelivery

from .conftest import deliver_all, headers_of


def confirmed_order(world, receiver) -> dict:
    """A Buy of 1000.00 confirmed by its trader, its two events delivered to `receiver`."""
    order = world.buy(webhook_url=receiver.url)
    assert world.confirm(order).status_code == 200
    deliver_all()
    return order


def test_order_page_shows_events_with_actors_and_delivery_attempts(world, receiver, operator):
    order = confirmed_order(world, receiver)
    page = operator.get(reverse("admin:orders_order_change", args=[order["id"]]))
    assert page.status_code == 200
    html = page.content.decode()
    completed = html.index("data-testid='event-2'")
    created = html.index("data-testid='event-1'")
    assert completed < created  # newest first
    assert "order.completed" in html[completed:created] and "trader" in html[completed:created]
    assert "order.created" in html[created:] and "merchant" in html[created:]
    assert html.count("HTTP 200") == 2
    assert all(
        f'data-testid="resend-delivery-{d.pk}"' in html for d in WebhookDelivery.objects.all()
    )


def test_the_resend_button_sends_the_same_event_again_and_returns_to_the_order(
    world, receiver, operator
):
    order = confirmed_order(world, receiver)
    order_page = reverse("admin:orders_order_change", args=[order["id"]])
    html = operator.get(order_page).content.decode()
    delivery = WebhookDelivery.objects.order_by("pk").first()
    action = re.search(
        rf'formaction="([^"]+)"\s+data-testid="resend-delivery-{delivery.pk}"', html
    ).group(1)
    response = operator.post(action.replace("&amp;", "&"))
    assert response.status_code == 302
    assert response["Location"] == order_page
    assert delivery_attempt(delivery_id=delivery.pk) == "delivered"
    first, _, again = receiver.requests
    assert headers_of(again)["webhook-id"] == headers_of(first)["webhook-id"]
    html = operator.get(order_page).content.decode()
    assert html.count("HTTP 200") == 3


def test_resend_view_takes_only_post_and_never_redirects_off_site(world, receiver, operator):
    confirmed_order(world, receiver)
    delivery = WebhookDelivery.objects.order_by("pk").first()
    url = reverse("admin:webhooks_webhookdelivery_resend", args=[delivery.pk])
    assert operator.get(url).status_code == 405
    response = operator.post(url + "?next=https://evil.example/")
    assert response["Location"] == reverse(
        "admin:webhooks_webhookdelivery_change", args=[delivery.pk]
    )


def test_dispute_page_shows_the_orders_history(world, receiver, operator):
    order = confirmed_order(world, receiver)
    created = world.shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": "1000.00"}
    )
    assert created.status_code == 201
    dispute_id = created.json()["dispute_id"]
    html = operator.get(reverse("admin:disputes_dispute_change", args=[dispute_id])).content
    html = html.decode()
    assert "dispute.created" in html and "order.completed" in html
    assert "data-testid='event-3'" in html
    assert 'data-testid="resend-delivery-' in html
