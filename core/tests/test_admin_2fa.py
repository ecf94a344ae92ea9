"""Two-factor sign-in for staff: with ADMIN_2FA on, a password alone opens nothing."""

import re

import pytest
from django.core.cache import cache
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

GOOD = {"username": "operator", "password": "operator-demo-password"}


@pytest.fixture(autouse=True)
def two_factor_on(settings):
    settings.ADMIN_2FA = True
    cache.clear()
    yield
    cache.clear()


def code(device: TOTPDevice) -> str:
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


def enrol(client: Client) -> TOTPDevice:
    assert client.post("/admin/login/", GOOD).status_code == 302
    page = client.get("/admin/2fa/")
    assert "<svg" in page.content.decode()
    device = TOTPDevice.objects.get(user__username="operator", confirmed=False)
    assert client.post("/admin/2fa/", {"otp_token": code(device), "next": "/admin/"})[
        "Location"
    ].endswith("/admin/")
    device.refresh_from_db()
    return device


def test_a_password_alone_reaches_only_the_enrolment_page(operator_user):
    client = Client()
    assert client.post("/admin/login/", GOOD).status_code == 302
    for path in ["/admin/", "/admin/dashboard/", "/admin/orders/order/"]:
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/2fa/")
    page = client.get("/admin/2fa/").content.decode()
    assert 'data-testid="totp-qr"' in page and re.search(r"[A-Z2-7]{32}", page)


def test_a_wrong_code_does_not_enrol(operator_user):
    client = Client()
    client.post("/admin/login/", GOOD)
    client.get("/admin/2fa/")
    response = client.post("/admin/2fa/", {"otp_token": "000000"})
    assert response.status_code == 200
    assert "Код неверен" in response.content.decode()  # in the operators' Russian
    assert not TOTPDevice.objects.filter(confirmed=True).exists()
    assert client.get("/admin/").status_code == 302


def test_enrolled_staff_sign_in_with_password_and_a_valid_code(operator_user):
    device = enrol(Client())
    assert device.confirmed
    client = Client()
    assert client.get("/admin/").status_code == 302

    without = client.post("/admin/login/", GOOD)
    assert without.status_code == 200
    assert "otp_token" in without.content.decode()
    wrong = client.post("/admin/login/", {**GOOD, "otp_token": "123456"})
    assert wrong.status_code == 200

    # A code is good once, and django-otp slows retries after a wrong one: both are
    # reset here so the next code is accepted at once.
    device.refresh_from_db()
    device.last_t = -1
    device.throttling_failure_count = 0
    device.throttling_failure_timestamp = None
    device.save()
    signed_in = client.post("/admin/login/", {**GOOD, "otp_token": code(device)})
    assert signed_in.status_code == 302
    assert client.get("/admin/orders/order/").status_code == 200


def test_with_two_factor_off_the_password_is_enough(operator_user, settings):
    settings.ADMIN_2FA = False
    client = Client()
    assert client.post("/admin/login/", GOOD).status_code == 302
    assert client.get("/admin/").status_code == 200
