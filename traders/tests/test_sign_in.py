"""The cabinet's sign-in: users linked to a trader only, staff without one get 403,
failures throttled as the admin's are, TOTP when TRADER_2FA is on."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from core.testing import operator_user_create
from orders.models import Trader
from orders.tests.factories import TraderFactory

PASSWORD = "trader-demo-password"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def trader_user(db):
    """`trader1` / PASSWORD, the cabinet user of Trader One."""
    user = get_user_model().objects.create_user("trader1", password=PASSWORD)
    return TraderFactory(name="Trader One", user=user)


def sign_in(client: Client, username="trader1", password=PASSWORD, **extra):
    return client.post("/trader/login/", {"username": username, "password": password, **extra})


def test_demo_users_are_linked_to_their_traders(demo):
    linked = dict(Trader.objects.filter(user__isnull=False).values_list("user__username", "name"))
    assert linked["trader1"] == "Trader One"
    assert linked["trader2"] == "Trader Two"
    assert linked["trader3"] == "Trader Three"
    assert linked["trader4"] == "Trader Four"
    assert linked["sandbox-trader"] == "Sandbox Trader"


def test_a_trader_signs_in_and_lands_on_its_orders(trader_user):
    client = Client()
    page = client.get("/trader/login/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="username"' in html and 'name="password"' in html
    assert 'name="csrfmiddlewaretoken"' in html and 'lang="ru"' in html
    response = sign_in(client)
    assert response.status_code == 302 and response["Location"] == "/trader/"
    orders = client.get("/trader/")
    assert orders.status_code == 200 and "Trader One" in orders.content.decode()
    assert client.get("/trader/login/")["Location"] == "/trader/"  # already signed in


def test_the_form_needs_its_csrf_token(trader_user):
    client = Client(enforce_csrf_checks=True)
    assert sign_in(client).status_code == 403


def test_pages_send_a_stranger_to_sign_in(trader_user):
    for path in ("/trader/", "/trader/orders/live/"):
        response = Client().get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/trader/login/?next=")


def test_a_wrong_password_is_refused_in_russian(trader_user):
    response = sign_in(Client(), password="wrong-password")
    assert response.status_code == 200
    assert 'data-testid="sign-in-error"' in response.content.decode()
    assert "пароль" in response.content.decode().lower()


def test_staff_without_a_trader_get_403(trader_user):
    operator_user_create()
    response = sign_in(Client(), username="operator", password="operator-demo-password")
    assert response.status_code == 403
    admin = Client()
    admin.force_login(get_user_model().objects.get(username="operator"))
    assert admin.get("/trader/").status_code == 403


def test_a_user_without_a_trader_is_not_let_in(trader_user):
    get_user_model().objects.create_user("plain", password=PASSWORD)
    client = Client()
    response = sign_in(client, username="plain")
    assert response.status_code == 200
    assert client.get("/trader/").status_code == 302


def test_failures_are_throttled_like_the_admins(trader_user):
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(5):
        assert sign_in(client, password="wrong-password").status_code == 200
    locked = sign_in(client)
    assert locked.status_code == 429 and locked["Retry-After"]
    assert 'data-testid="sign-in-locked"' in locked.content.decode()
    assert sign_in(Client(REMOTE_ADDR="198.51.100.9")).status_code == 302


def code(device: TOTPDevice) -> str:
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


def test_with_trader_2fa_a_password_alone_opens_only_the_enrolment(trader_user, settings):
    settings.TRADER_2FA = True
    client = Client()
    assert sign_in(client).status_code == 302
    assert client.get("/trader/")["Location"].startswith("/trader/2fa/")
    page = client.get("/trader/2fa/").content.decode()
    assert 'data-testid="totp-qr"' in page and re.search(r"[A-Z2-7]{32}", page)
    device = TOTPDevice.objects.get(user__username="trader1", confirmed=False)
    assert client.post("/trader/2fa/", {"otp_token": code(device)}).status_code == 302
    assert client.get("/trader/").status_code == 200

    # Enrolled: the sign-in form wants the code with the password (a code is taken
    # once: the step just used is forgotten here so that the same code serves again).
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
    again = Client()
    assert sign_in(again).status_code == 200
    assert sign_in(again, otp_token=code(device)).status_code == 302
    assert again.get("/trader/").status_code == 200


def test_english_on_request(trader_user):
    client = Client()
    page = client.get("/trader/login/?lang=en").content.decode()
    assert 'lang="en"' in page and "Sign in" in page
    assert 'lang="en"' in client.get("/trader/login/").content.decode()  # kept in the cookie
