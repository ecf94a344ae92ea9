"""A sandbox session's page: the test-mode banner and the two buttons that act as the
trader (docs/sandbox.md), through the Django test client; the browser test drives them
in Chromium."""

import re

import pytest
from django.test import Client

from core.testing import ApiClient
from forms_ui.models import FormSession
from webhooks.models import WebhookEvent

from .conftest import BUTTONS, form_world

SBP_BANKS = ("Sberbank SBP", "T-Bank SBP", "Alfa-Bank SBP", "VTB SBP")


@pytest.fixture
def world(db):
    """The form tests' world, and a sandbox trader holding two requisites on each bank
    SBP method."""
    return form_world(sandbox_holders=dict.fromkeys(SBP_BANKS, 2))


@pytest.fixture
def shop(world) -> ApiClient:
    return world.api


@pytest.fixture
def sandbox(world) -> ApiClient:
    """A sandbox terminal with its form on and the live shop's buttons."""
    terminal = world.terminal(sandbox=True, form_activated=True, buttons=BUTTONS)
    return ApiClient(terminal.raw_key)


def create(api: ApiClient, **order_data) -> FormSession:
    data = {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000", **order_data}
    response = api.post("/api/v1/form/create", {"order_data": data})
    assert response.status_code == 201, response.content
    return FormSession.objects.get(pk=response.json()["form_data"]["session_id"])


def hooks_in(html: str) -> list[str]:
    return re.findall(r'data-testid="([a-z-]+)"', html)


def page(client, session, **params) -> str:
    return client.get("/form/", {"session_id": session.pk, **params}).content.decode()


def test_sandbox_page_shows_the_banner_and_the_trader_buttons(sandbox, client):
    session = create(sandbox, button_name="SberPay")
    hooks = hooks_in(page(client, session))
    assert hooks.count("sandbox-banner") == 1
    assert hooks.count("sandbox-complete") == 1 and hooks.count("sandbox-decline") == 1
    assert "requisite-account" in hooks


def test_sandbox_buttons_stay_while_the_payment_is_being_checked(sandbox, client):
    session = create(sandbox, button_name="TPay")
    client.post("/form/paid", {"session_id": session.pk})
    hooks = hooks_in(page(client, session))
    assert "paid-button" not in hooks
    assert {"sandbox-banner", "sandbox-complete", "sandbox-decline"} <= set(hooks)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "ru",
            [
                "Тестовый режим.",
                "Это платёж в песочнице: реальные деньги не переводятся.",
                "Платёж получен (завершить)",
                "Отклонить платёж",
            ],
        ),
        (
            "en",
            [
                "Test mode.",
                "This is a sandbox payment: no real money moves.",
                "Payment received (complete)",
                "Decline the payment",
            ],
        ),
    ],
)
def test_sandbox_texts_come_from_the_page_catalogs(sandbox, client, lang, words):
    session = create(sandbox, button_name="SberPay")
    html = page(client, session, lang=lang)
    for text in words:
        assert text in html


def test_sandbox_method_choice_has_the_banner_but_no_buttons(sandbox, client):
    session = create(sandbox)
    hooks = hooks_in(page(client, session, lang="en"))
    assert "sandbox-banner" in hooks and "method-option" in hooks
    assert "sandbox-complete" not in hooks and "sandbox-decline" not in hooks


def test_live_pages_have_neither_banner_nor_buttons(shop, client):
    session = create(shop, button_name="SberPay")
    hooks = hooks_in(page(client, session))
    assert "requisite-account" in hooks
    assert not {"sandbox-banner", "sandbox-complete", "sandbox-decline"} & set(hooks)


def test_complete_button_completes_the_order_as_the_sandbox(sandbox):
    session = create(sandbox, button_name="SberPay")
    browser = Client(enforce_csrf_checks=True)
    html = page(browser, session)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    response = browser.post(
        "/form/sandbox",
        {"session_id": session.pk, "action": "complete", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    assert "success-screen" in hooks_in(browser.get(response["Location"]).content.decode())
    session.refresh_from_db()
    assert session.state == "completed"
    assert session.order.status == "Completed" and session.order.closed_by == "sandbox"
    assert session.order.paid_amount == session.order.amount
    assert list(
        WebhookEvent.objects.filter(order_id=session.order_id)
        .order_by("sequence")
        .values_list("type", flat=True)
    ) == ["order.created", "order.completed"]


def test_decline_button_cancels_the_order(sandbox, client):
    session = create(sandbox, button_name="AlfaPay")
    response = client.post("/form/sandbox", {"session_id": session.pk, "action": "decline"})
    html = client.get(response["Location"]).content.decode()
    assert 'data-reason="cancelled"' in html
    session.refresh_from_db()
    assert session.order.status == "Cancelled" and session.order.closed_by == "sandbox"


def test_the_buttons_need_the_csrf_token(sandbox):
    session = create(sandbox, button_name="SberPay")
    response = Client(enforce_csrf_checks=True).post(
        "/form/sandbox", {"session_id": session.pk, "action": "complete"}
    )
    assert response.status_code == 403
    session.refresh_from_db()
    assert session.order.status == "Pending"


def test_posting_the_buttons_on_a_live_session_is_a_404_and_changes_nothing(shop, client):
    session = create(shop, button_name="SberPay")
    response = client.post("/form/sandbox", {"session_id": session.pk, "action": "complete"})
    assert response.status_code == 404
    session.refresh_from_db()
    assert session.order.status == "Pending"


def test_an_unknown_action_or_a_closed_order_changes_nothing(sandbox, client):
    session = create(sandbox, button_name="SberPay")
    client.post("/form/sandbox", {"session_id": session.pk, "action": "refund"})
    session.refresh_from_db()
    assert session.order.status == "Pending"
    client.post("/form/sandbox", {"session_id": session.pk, "action": "decline"})
    response = client.post("/form/sandbox", {"session_id": session.pk, "action": "complete"})
    assert response.status_code == 302
    session.refresh_from_db()
    assert session.order.status == "Cancelled"


def test_unknown_session_is_a_404(client, db):
    response = client.post("/form/sandbox", {"session_id": "nope", "action": "complete"})
    assert response.status_code == 404
