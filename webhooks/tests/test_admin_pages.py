"""Webhook pages in the admin: readable bodies, named attempts, no useless Save."""

from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEvent

from .conftest import event_page


def test_an_event_page_shows_its_body_indented_and_offers_no_save(operator, world):
    client = operator
    client.cookies["django_language"] = "en"  # these pages' words, in English
    order = world.buy(webhook_url="https://example.com/h")
    event = WebhookEvent.objects.get(order_id=order["id"])
    # the admin's own quoting: an id whose hex starts with 22, 23, 24, 25, 26 or 40
    # would otherwise read as a quoted character ("msg_40..." as "msg@...")
    page = client.get(event_page(event.pk)).content.decode()
    assert "<pre" in page and "\n  &quot;type&quot;: &quot;order.created&quot;" in page
    assert 'name="_save"' not in page
    assert f'name="_selected_action" value="{event.pk}"' in page and 'data-testid="resend"' in page


def test_an_attempt_is_named_by_its_number_and_outcome(world):
    from django.utils import timezone

    order = world.buy(webhook_url="https://example.com/h")
    delivery = WebhookDelivery.objects.get(event__order_id=order["id"])
    attempt = WebhookAttempt.objects.create(
        delivery=delivery, number=7, started_at=timezone.now(), duration_ms=120, status_code=503
    )
    assert str(attempt) == "attempt 7 · 503 · 120 ms"


def test_a_delivery_is_resent_from_its_own_page(operator, world):
    from django.utils import timezone

    from webhooks.models import DeliveryState

    client = operator
    client.cookies["django_language"] = "en"  # these pages' words, in English
    order = world.buy(webhook_url="https://example.com/h")
    delivery = WebhookDelivery.objects.get(event__order_id=order["id"])
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        state=DeliveryState.FAILED, next_attempt_at=timezone.now() + timezone.timedelta(days=1)
    )
    page = client.get(f"/admin/webhooks/webhookdelivery/{delivery.pk}/change/").content.decode()
    assert 'data-testid="resend"' in page
    done = client.post(
        "/admin/webhooks/webhookdelivery/",
        {"action": "resend", "_selected_action": delivery.pk},
        follow=True,
    )
    assert "Queued 1 delivery for sending now." in done.content.decode()
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.PENDING
    # an operator's action like any other: in the delivery's history and the audit log
    from audit.models import AuditEntry

    entry = AuditEntry.objects.get(object_type="webhooks.webhookdelivery")
    assert (entry.action, entry.object_id) == ("admin.change", str(delivery.pk))
    assert entry.changes["message"] == "Отправлено повторно из админки"
