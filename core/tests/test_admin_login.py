"""Sign-in throttling: per (user name, address) and per address, never per user name."""

import pytest
from django.core.cache import cache
from django.test import Client

GOOD = "operator-demo-password"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def sign_in(address: str, username: str = "operator", password: str = "wrong", **headers):
    return Client(REMOTE_ADDR=address, **headers).post(
        "/admin/login/", {"username": username, "password": password}
    )


def test_five_failures_lock_the_pair_but_not_the_operator_elsewhere(operator_user):
    for _ in range(5):
        assert sign_in("203.0.113.7").status_code == 200
    assert sign_in("203.0.113.7", password=GOOD).status_code == 429
    assert sign_in("198.51.100.9", password=GOOD).status_code == 302


def test_other_user_names_from_the_locked_pairs_address_still_try(operator_user):
    for _ in range(5):
        sign_in("203.0.113.7")
    assert sign_in("203.0.113.7", username="someone-else").status_code == 200


@pytest.mark.parametrize("variant", ["ｏｐｅｒａｔｏｒ", "OPERATOR", "Operator "])
def test_spellings_of_one_user_name_share_its_tries(operator_user, variant):
    for _ in range(5):
        sign_in("203.0.113.7", username=variant)
    assert sign_in("203.0.113.7", password=GOOD).status_code == 429


def test_twenty_failures_lock_the_address_for_every_user_name(operator_user):
    for n in range(20):
        assert sign_in("203.0.113.7", username=f"guess-{n}").status_code == 200
    assert sign_in("203.0.113.7", password=GOOD).status_code == 429
    assert sign_in("198.51.100.9", password=GOOD).status_code == 302


def test_a_forwarded_header_is_ignored_from_untrusted_peers(operator_user):
    for n in range(5):
        sign_in("203.0.113.7", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    assert sign_in("203.0.113.7", password=GOOD).status_code == 429


def test_trusted_proxies_pass_on_the_client_address(operator_user, settings):
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.2", "10.0.0.3"]
    for _ in range(5):
        sign_in("10.0.0.2", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7, 10.0.0.3")
    locked = sign_in("10.0.0.2", password=GOOD, HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert locked.status_code == 429
    other = sign_in("10.0.0.2", password=GOOD, HTTP_X_FORWARDED_FOR="9.9.9.9, 198.51.100.9")
    assert other.status_code == 302


def test_the_pair_limit_follows_admin_login_rate_limit(operator_user, settings):
    settings.ADMIN_LOGIN_RATE_LIMIT = "2/10min"
    for _ in range(2):
        sign_in("203.0.113.7")
    locked = sign_in("203.0.113.7", password=GOOD)
    assert locked.status_code == 429
    assert locked["Retry-After"] == "600"
    assert sign_in("198.51.100.9", password=GOOD).status_code == 302


def test_the_lock_page_speaks_the_operators_language(operator_user, settings):
    settings.ADMIN_LOGIN_RATE_LIMIT = "1/15min"
    sign_in("203.0.113.7")
    client = Client(REMOTE_ADDR="203.0.113.7", HTTP_ACCEPT_LANGUAGE="ru")
    locked = client.post("/admin/login/", {"username": "operator", "password": GOOD})
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Слишком много неудачных попыток входа. Попробуйте снова через 15 мин." in page
    assert '<html lang="ru">' in page and "Too many" not in page
