import base64
import json
import re
import time
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from core.json_text import KeptTextEncoder, RenderedJSON
from core.testing import ApiClient
from orders.services import order_confirm
from webhooks.delivery import delivery_attempt
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEvent
from webhooks.services import delivery_resend, webhook_secret_rotate
from webhooks.tasks import deliveries_requeue_due

from .conftest import SECRET, deliver_all, event_page, headers_of, make_due


@pytest.fixture
def shop(world) -> ApiClient:  # the conftest's world, not the demo set
    return world.shop


def test_events_are_signed_per_standard_webhooks_and_carry_the_order(shop, world, receiver):
    order = shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url)).json()
    world.trader.post(f"/api/v1/trader/orders/{order['id']}/confirm")
    deliver_all()
    assert len(receiver.requests) == 2
    payloads = []
    for request in receiver.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        verified = Webhook(SECRET).verify(request["body"], headers)
        payloads.append(verified)
        assert headers["webhook-id"] == verified["id"]
        assert headers["content-type"] == "application/json"
    assert [p["type"] for p in payloads] == ["order.created", "order.completed"]
    assert [p["sequence"] for p in payloads] == [1, 2]
    assert payloads[1]["data"]["order"]["id"] == order["id"]
    assert payloads[1]["data"]["order"]["status"] == "Completed"
    assert set(payloads[0]) == {"id", "type", "created_at", "sequence", "livemode", "actor", "data"}
    assert [(p["actor"], p["livemode"]) for p in payloads] == [("merchant", True), ("trader", True)]
    assert all(d.state == "delivered" for d in WebhookDelivery.objects.all())


def test_a_tampered_body_fails_verification(shop, world, receiver):
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    deliver_all()
    request = receiver.requests[0]
    headers = {k.lower(): v for k, v in request["headers"].items()}
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(request["body"].replace(b"Pending", b"Completd"), headers)


def test_terminal_urls_are_used_when_the_order_has_none(shop, world, receiver):
    world.terminal.webhook_urls = [receiver.url, receiver.url + "/second"]
    world.terminal.save()
    shop.post("/api/v1/order/", world.buy_body())
    assert WebhookDelivery.objects.count() == 2
    deliver_all()
    assert sorted(r["path"] for r in receiver.requests) == ["/hooks", "/hooks/second"]


def test_per_order_url_replaces_the_terminal_urls(shop, world, receiver):
    world.terminal.webhook_urls = ["http://127.0.0.1:9/never"]
    world.terminal.save()
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    assert list(WebhookDelivery.objects.values_list("url", flat=True)) == [receiver.url]


def test_500_is_retried_on_schedule_with_a_stable_webhook_id(shop, world, receiver, settings):
    settings.WEBHOOK_RETRY_SCHEDULE = [5, 300]
    receiver.status = 500
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    before = timezone.now()
    assert delivery_attempt(delivery_id=delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_status_code) == (1, 500)
    assert timedelta(seconds=4) < delivery.next_attempt_at - before < timedelta(seconds=7)
    assert delivery_attempt(delivery_id=delivery.pk) is None  # not due yet
    make_due(delivery)
    delivery_attempt(delivery_id=delivery.pk)
    make_due(delivery)
    assert delivery_attempt(delivery_id=delivery.pk) == "failed"  # schedule exhausted
    ids = {r["headers"]["webhook-id"] for r in receiver.requests}
    assert len(receiver.requests) == 3 and len(ids) == 1
    attempts = list(WebhookAttempt.objects.order_by("number"))
    assert [a.number for a in attempts] == [1, 2, 3]
    assert all(a.status_code == 500 and a.duration_ms >= 0 for a in attempts)


def test_recovery_after_failures(shop, world, receiver):
    receiver.status = 503
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)
    receiver.status = 204
    make_due(delivery)
    assert delivery_attempt(delivery_id=delivery.pk) == "delivered"


def test_timeout_counts_as_a_failure(shop, world, receiver, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.3
    receiver.delay = 1.0
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.pk) == "pending"
    assert "Timed out" in WebhookAttempt.objects.get().error


def test_redirects_are_not_followed(shop, world, receiver):
    receiver.redirect_to = "http://127.0.0.1:9/elsewhere"
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.pk) == "pending"
    assert WebhookAttempt.objects.get().status_code == 302
    assert len(receiver.requests) == 1


def test_response_excerpt_is_truncated(shop, world, receiver):
    receiver.body = b"x" * 100_000
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)
    assert len(WebhookAttempt.objects.get().response_excerpt) == 2048


def test_private_targets_are_refused_unless_allowed(shop, world, receiver, settings):
    # Accepted while allowed; the setting is turned off before delivery.
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    delivery = WebhookDelivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.pk) == "pending"
    assert receiver.requests == []
    assert "non-public address" in WebhookAttempt.objects.get().error


@pytest.mark.parametrize("host", ["127.0.0.1", "[::1]", "169.254.169.254", "localhost"])
def test_a_webhook_url_the_guard_refuses_is_refused_at_creation(shop, world, settings, host):
    from orders.models import Order

    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    response = shop.post("/api/v1/order/", world.buy_body(webhook_url=f"http://{host}/hook"))
    assert response.status_code == 400, response.content
    assert "webhook_url" in response.json()["errors"]
    assert not Order.objects.exists() and not WebhookDelivery.objects.exists()


@pytest.mark.parametrize(
    "address",
    [
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.100.100.200",
        "127.0.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "fd00::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b::a00:1",  # NAT64 around 10.0.0.1
        "64:ff9b:1::a00:1",  # local-use NAT64
        "2002:a9fe:a9fe::",  # 6to4 around 169.254.169.254
        "2002:a00:1::1",  # 6to4 around 10.0.0.1
        "2002:7f00:1::",  # 6to4 around 127.0.0.1
        "fec0::1",  # site-local
        "fec0:1234::5",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
        "::10.0.0.1",  # IPv4-compatible
        "::ffff:0:a00:1",  # IPv4-translated
        "100::1",  # discard-only
        "2001:db8::1",  # documentation
        "fc00::1",
        "ff02::1",
    ],
)
def test_every_private_range_is_refused(settings, address):
    from webhooks.guard import DeliveryRefused, resolve_target

    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(DeliveryRefused):
        resolve_target(f"http://{host}/hook")


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(settings, address):
    from webhooks.guard import _is_public

    assert _is_public(address)


def test_sweep_recovers_a_delivery_whose_task_was_never_queued(
    shop, world, receiver, django_capture_on_commit_callbacks
):
    # The on-commit hook that queues the task is captured and never run: as if the
    # broker had lost the message.
    with django_capture_on_commit_callbacks(execute=False):
        shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    assert delivery.state == "pending"
    assert deliveries_requeue_due() == 1
    delivery_attempt(delivery_id=delivery.pk)  # what the queued task does
    assert len(receiver.requests) == 1


def test_sweep_leaves_claimed_deliveries_alone_until_the_claim_runs_out(shop, world, receiver):
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        locked_until=timezone.now() + timedelta(seconds=60)
    )
    assert deliveries_requeue_due() == 0
    assert delivery_attempt(delivery_id=delivery.pk) is None
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        locked_until=timezone.now() - timedelta(seconds=1)
    )
    assert deliveries_requeue_due() == 1


def test_event_body_is_the_stored_payload(shop, world):
    created = world.buy()
    order_confirm(order_id=created["id"], actor="operator:test")
    events = list(WebhookEvent.objects.order_by("sequence"))
    assert [e.type for e in events] == ["order.created", "order.completed"]
    for event in events:
        assert json.loads(event.body) == event.payload
    assert events[1].payload["data"]["order"]["status"] == "Completed"


def test_a_rendered_payload_is_written_from_its_text_and_a_plain_one_encoded(shop, world):
    """The payload column takes a RenderedJSON's kept text as it is (a text that says
    otherwise than the dict is what the column holds), any other value encoded."""
    shop.post("/api/v1/order/", world.buy_body())
    event = WebhookEvent.objects.get()
    rendered = RenderedJSON(a=1)
    rendered.text = '{"a": 2, "kept": "текст"}'
    WebhookEvent.objects.filter(pk=event.pk).update(payload=rendered)
    event.refresh_from_db()
    assert event.payload == {"a": 2, "kept": "текст"}
    WebhookEvent.objects.filter(pk=event.pk).update(payload={"a": [1, "ы"]})
    event.refresh_from_db()
    assert event.payload == {"a": [1, "ы"]}
    assert json.dumps({"a": [1, "ы"]}, cls=KeptTextEncoder) == json.dumps({"a": [1, "ы"]})
    assert json.dumps(RenderedJSON(b=1) | {"c": 2}, cls=KeptTextEncoder) == '{"b": 1, "c": 2}'


def test_operator_resends_from_the_admin(shop, world, receiver, operator):
    receiver.status = 500
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(state="failed")
    response = operator.post(
        "/admin/webhooks/webhookdelivery/", {"action": "resend", "_selected_action": [delivery.pk]}
    )
    assert response.status_code == 302
    delivery.refresh_from_db()
    assert delivery.state == "pending"
    receiver.status = 200
    assert delivery_attempt(delivery_id=delivery.pk) == "delivered"
    assert operator.get(f"/admin/webhooks/webhookdelivery/{delivery.pk}/change/").status_code == 200
    assert operator.get(event_page(delivery.event_id)).status_code == 200


def test_operator_rotates_the_webhook_secret(world, operator):
    old = world.terminal.webhook_secret
    response = operator.post(
        "/admin/finance/terminal/",
        {"action": "rotate_webhook_secret", "_selected_action": [str(world.terminal.pk)]},
        follow=True,
    )
    world.terminal.refresh_from_db()
    assert world.terminal.webhook_secret != old and world.terminal.webhook_secret.startswith(
        "whsec_"
    )
    assert world.terminal.webhook_secret in response.content.decode()


def test_a_trickling_answer_is_cut_off_at_the_timeout(shop, world, receiver, settings):
    # Each byte arrives well within the timeout; the whole answer would take 20 s.
    settings.WEBHOOK_TIMEOUT_SECONDS = 1
    receiver.trickle = 0.1
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    started = time.monotonic()
    assert delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk) == "pending"
    assert time.monotonic() - started < 3
    attempt = WebhookAttempt.objects.get()
    assert "Timed out" in attempt.error and attempt.status_code is None


def test_https_connects_to_the_checked_address_and_keeps_the_name_for_tls():
    from webhooks.guard import resolve_target

    target = resolve_target("https://localhost:8443/hooks?x=1")
    assert target.url in ("https://127.0.0.1:8443/hooks?x=1", "https://[::1]:8443/hooks?x=1")
    assert (target.host, target.server_name) == ("localhost:8443", "localhost")
    plain = resolve_target("http://localhost/hooks")
    assert plain.url in ("http://127.0.0.1/hooks", "http://[::1]/hooks")
    assert (plain.host, plain.server_name) == ("localhost", None)


def test_only_http_and_https_targets_are_called(settings):
    from webhooks.guard import DeliveryRefused, resolve_target

    for url in ["ftp://example.com/x", "file:///etc/passwd", "gopher://127.0.0.1:6379/_"]:
        with pytest.raises(DeliveryRefused):
            resolve_target(url)


def test_credentials_in_the_url_are_sent_as_basic_auth_not_in_the_host(shop, world, receiver):
    url = receiver.url.replace("http://", "http://merchant:s%40cret@")
    shop.post("/api/v1/order/", world.buy_body(webhook_url=url))
    assert delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk) == "delivered"
    headers = receiver.requests[0]["headers"]
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"merchant:s@cret").decode()
    assert headers["Host"] == receiver.url.split("/")[2]


def test_the_body_is_byte_for_byte_the_same_on_every_retry(shop, world, receiver, settings):
    receiver.status = 500
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    for _ in range(3):
        make_due(delivery)
        delivery_attempt(delivery_id=delivery.pk)
    bodies = {r["body"] for r in receiver.requests}
    assert len(receiver.requests) == 3 and bodies == {delivery.event.body.encode()}
    # each attempt is signed anew, and each signature verifies
    for request in receiver.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        Webhook(SECRET).verify(request["body"], headers)


def test_sequence_counts_up_per_order(shop, world, receiver):
    first = shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url)).json()
    second = shop.post(
        "/api/v1/order/", world.buy_body(webhook_url=receiver.url, amount="1001.00")
    ).json()
    world.trader.post(f"/api/v1/trader/orders/{first['id']}/confirm")
    world.trader.post(f"/api/v1/trader/orders/{second['id']}/cancel")
    deliver_all()
    seen = {}
    for request in receiver.requests:
        payload = json.loads(request["body"])
        seen.setdefault(payload["data"]["order"]["id"], []).append(
            (payload["sequence"], payload["type"])
        )
    assert sorted(seen[first["id"]]) == [(1, "order.created"), (2, "order.completed")]
    assert sorted(seen[second["id"]]) == [(1, "order.created"), (2, "order.cancelled")]


def test_event_page_shows_every_attempt_of_every_delivery(shop, world, receiver, operator):
    receiver.status = 503
    receiver.body = b"upstream down for maintenance"
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)
    receiver.status, receiver.body = 200, b"thanks"
    make_due(delivery)
    delivery_attempt(delivery_id=delivery.pk)
    page = operator.get(event_page(delivery.event_id))
    html = page.content.decode()
    assert page.status_code == 200
    assert "upstream down for maintenance" in html and "HTTP 503" in html and "thanks" in html
    assert receiver.url in html and "доставлен" in html  # its state, in the page's words


def test_admin_lists_filter_by_state_and_type_and_search_by_order_and_event_id(
    shop, world, receiver, operator
):
    receiver.status = 500
    order = shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url)).json()
    other = shop.post(
        "/api/v1/order/", world.buy_body(webhook_url=receiver.url, amount="1002.00")
    ).json()
    world.trader.post(f"/api/v1/trader/orders/{order['id']}/confirm")
    completed = WebhookEvent.objects.get(type="order.completed")
    WebhookDelivery.objects.filter(event=completed).update(state="failed")

    def listed(path, **params) -> tuple[int, str]:
        """(rows the list shows, its page)."""
        response = operator.get(path, params)
        assert response.status_code == 200
        html = response.content.decode()
        return int(re.search(r'<p class="paginator">\s*(\d+)', html).group(1)), html

    deliveries = "/admin/webhooks/webhookdelivery/"
    assert listed(deliveries)[0] == 3
    count, html = listed(deliveries, state="failed")
    assert count == 1 and completed.id in html
    assert listed(deliveries, event__type__exact="order.created")[0] == 2
    count, html = listed(deliveries, q=other["id"])
    assert count == 1 and completed.id not in html
    count, html = listed(deliveries, q=completed.id)
    assert count == 1 and completed.id in html
    assert listed(deliveries, q="no-such-thing")[0] == 0

    events = "/admin/webhooks/webhookevent/"
    assert listed(events, q=order["id"])[0] == 2
    count, html = listed(events, deliveries__state="failed")
    assert count == 1 and completed.id in html
    count, html = listed(events, type__exact="order.completed")
    assert count == 1 and completed.id in html
    assert listed(events, q=completed.id)[0] == 1
    assert listed(events, q="not-a-uuid")[0] == 0


def test_resending_an_event_resends_each_of_its_deliveries(shop, world, receiver, operator):
    world.terminal.webhook_urls = [receiver.url, receiver.url + "/second"]
    world.terminal.save()
    shop.post("/api/v1/order/", world.buy_body())
    event = WebhookEvent.objects.get()
    WebhookDelivery.objects.update(state="failed")
    response = operator.post(
        "/admin/webhooks/webhookevent/", {"action": "resend", "_selected_action": [event.pk]}
    )
    assert response.status_code == 302
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {"pending"}
    deliver_all()
    assert len(receiver.requests) == 2


def test_a_resent_failed_delivery_gets_one_more_attempt(shop, world, receiver, settings):
    settings.WEBHOOK_RETRY_SCHEDULE = [1]
    receiver.status = 500
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)
    make_due(delivery)
    assert delivery_attempt(delivery_id=delivery.pk) == "failed"
    delivery_resend(delivery=delivery)
    assert delivery_attempt(delivery_id=delivery.pk) == "failed"
    delivery_resend(delivery=delivery)
    receiver.status = 200
    assert delivery_attempt(delivery_id=delivery.pk) == "delivered"
    assert len(receiver.requests) == 4


def test_after_a_rotation_both_secrets_verify_for_24_hours_then_only_the_new(shop, world, receiver):
    receiver.status = 500
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)
    new_secret = webhook_secret_rotate(terminal=world.terminal)
    assert new_secret.startswith("whsec_") and new_secret != SECRET
    make_due(delivery)
    delivery_attempt(delivery_id=delivery.pk)
    before, during = receiver.requests
    assert len(headers_of(before)["webhook-signature"].split(" ")) == 1
    assert len(headers_of(during)["webhook-signature"].split(" ")) == 2
    Webhook(SECRET).verify(during["body"], headers_of(during))
    Webhook(new_secret).verify(during["body"], headers_of(during))
    with pytest.raises(WebhookVerificationError):
        Webhook(new_secret).verify(before["body"], headers_of(before))

    with time_machine.travel(timezone.now() + timedelta(hours=24, seconds=1), tick=False):
        make_due(delivery)
        delivery_attempt(delivery_id=delivery.pk)
    after = receiver.requests[2]
    assert len(headers_of(after)["webhook-signature"].split(" ")) == 1
    with time_machine.travel(timezone.now() + timedelta(hours=24, seconds=1), tick=False):
        Webhook(new_secret).verify(after["body"], headers_of(after))
        with pytest.raises(WebhookVerificationError):
            Webhook(SECRET).verify(after["body"], headers_of(after))


def test_public_addresses_pass_the_guard(settings):
    from webhooks.guard import resolve_target

    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    target = resolve_target("https://93.184.215.14:8443/hook")
    assert (target.url, target.server_name) == ("https://93.184.215.14:8443/hook", "93.184.215.14")


def test_a_malformed_secret_is_a_counted_failure_not_a_crash(shop, world, receiver):
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    type(world.terminal).objects.filter(pk=world.terminal.pk).update(webhook_secret="whsec_")
    delivery = WebhookDelivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert delivery.attempts == 1 and delivery.locked_until is None
    assert receiver.requests == []


def test_event_links_work_for_ids_that_look_like_admin_escapes(shop, world, receiver, operator):
    # The admin reads "_40" in a URL as "@": an id such as msg_40… must be quoted.
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    old = WebhookEvent.objects.get().pk
    new = "msg_4025" + old[8:]
    WebhookEvent.objects.filter(pk=old).update(id=new)
    WebhookDelivery.objects.filter(event_id=old).update(event_id=new)
    listing = operator.get("/admin/webhooks/webhookdelivery/").content.decode()
    link = re.search(r'href="(/admin/webhooks/webhookevent/[^"]+/change/)"', listing).group(1)
    page = operator.get(link)
    assert page.status_code == 200 and new in page.content.decode()
