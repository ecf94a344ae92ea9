"""The client address (traders.md §24): the rightmost X-Forwarded-For hop that is not a
trusted proxy, else the connection's own address; the deployment trusts only its own
proxy."""

import ipaddress
import re
from pathlib import Path

import pytest
import yaml
from django.core.cache import cache
from django.test import Client, RequestFactory

from core.client_address import client_address

ROOT = Path(__file__).resolve().parents[2]


def address_of(remote: str, forwarded: str | None = None) -> str:
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return client_address(RequestFactory().get("/", **extra))


def test_the_default_trusts_the_proxy_on_this_machine_only(settings):
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1"]
    assert address_of("127.0.0.1", "6.6.6.6, 203.0.113.7") == "203.0.113.7"
    assert address_of("198.51.100.9", "203.0.113.7") == "198.51.100.9"
    assert address_of("127.0.0.1") == "127.0.0.1"


def test_a_star_trusts_the_peer_and_not_the_hops_the_client_wrote(settings):
    settings.FORWARDED_ALLOW_IPS = ["*"]
    assert address_of("10.0.0.2", "6.6.6.6, 203.0.113.7") == "203.0.113.7"
    assert address_of("10.0.0.2", "203.0.113.7") == "203.0.113.7"


def test_trusted_proxies_may_be_networks(settings):
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.0/8", "2001:db8::/32"]
    chain = "6.6.6.6, 203.0.113.7, 10.9.9.9"
    assert address_of("10.1.2.3", chain) == "203.0.113.7"
    assert address_of("2001:db8::5", "6.6.6.6, 198.51.100.4") == "198.51.100.4"
    assert address_of("11.0.0.1", chain) == "11.0.0.1"
    # Every hop is a proxy of ours: the connection's own address, never a hop.
    assert address_of("10.1.2.3", "10.5.5.5, 10.9.9.9") == "10.1.2.3"


def test_an_ipv4_mapped_peer_is_the_same_proxy(settings):
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1"]
    assert address_of("::ffff:127.0.0.1", "6.6.6.6, 203.0.113.7") == "203.0.113.7"


def test_hops_that_are_not_addresses_are_never_trusted(settings):
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1"]
    assert address_of("127.0.0.1", "203.0.113.7, unknown") == "unknown"


def sign_in(forged: str, password: str = "wrong"):
    return Client(REMOTE_ADDR="172.30.0.10", HTTP_X_FORWARDED_FOR=f"{forged}, 203.0.113.7").post(
        "/admin/login/", {"username": "operator", "password": password}
    )


@pytest.mark.parametrize("trusted", [["*"], ["172.30.0.10"], ["172.30.0.0/24"]])
def test_rotating_a_forged_address_does_not_escape_the_lockout(demo, settings, trusted):
    """Measured before: 30 of 30 wrong passwords checked while the forged hop changed."""
    settings.FORWARDED_ALLOW_IPS = trusted
    cache.clear()
    statuses = [sign_in(f"10.66.0.{n}").status_code for n in range(30)]
    assert statuses.count(200) == 5 and statuses.count(429) == 25
    assert sign_in("1.1.1.1", password="operator-demo-password").status_code == 429
    cache.clear()


def test_compose_trusts_only_the_proxy_container():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    proxy_address = compose["services"]["proxy"]["networks"]["default"]["ipv4_address"]
    for name in ("web", "worker", "periodic", "beat", "migrate"):
        allowed = compose["services"][name]["environment"]["FORWARDED_ALLOW_IPS"]
        # ${VAR:-default} as compose reads it with VAR unset.
        allowed = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", allowed)
        assert {a.strip() for a in allowed.split(",")} == {proxy_address}, name
    subnet = compose["networks"]["default"]["ipam"]["config"][0]
    # Every other container's address comes from a range the proxy's is not in.
    assert ipaddress.ip_address(proxy_address) not in ipaddress.ip_network(subnet["ip_range"])
    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(subnet["subnet"])


@pytest.mark.parametrize(
    ("forwarded", "stored"),
    [("6.6.6.6, 203.0.113.7", "203.0.113.7"), ("203.0.113.7, unknown", None)],
)
def test_a_form_session_keeps_the_client_address_not_the_proxys(demo, settings, forwarded, stored):
    from conftest import ApiClient
    from forms_ui.models import FormSession

    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1"]
    body = {"order_data": {"client_order_id": "ip-1", "order_side": "Buy", "amount": "1000"}}
    headers = {"X-Forwarded-For": forwarded}
    response = ApiClient("demo-shop-key").post("/api/v1/form/create", body, headers=headers)
    assert response.status_code == 201, response.content
    session = FormSession.objects.get(pk=response.json()["form_data"]["session_id"])
    assert session.ip_address == stored
