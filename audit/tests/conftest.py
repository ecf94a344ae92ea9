import pytest
from django.test import Client

from core.testing import ApiClient

ADDRESS = "203.0.113.7"  # the client's, behind the trusted proxy the test client is


@pytest.fixture
def operator(demo) -> Client:
    """The demo operator, signed in through the admin's login form from ADDRESS."""
    client = Client(HTTP_X_FORWARDED_FOR=ADDRESS)
    response = client.post(
        "/admin/login/",
        {"username": "operator", "password": "operator-demo-password", "next": "/admin/"},
    )
    assert response.status_code == 302, response.content[:300]
    return client


def from_address(api: ApiClient) -> ApiClient:
    api.http.defaults["HTTP_X_FORWARDED_FOR"] = ADDRESS
    return api
