"""X-Device-Token authentication: a trader's phone, by its `dev_` token.

A missing, unknown or revoked token is 401 `Invalid device token` and counts as a
failed authentication of the client address, exactly as a wrong API key does (past
AUTH_FAILURE_RATE_LIMIT the address gets 429 before any look-up). A good token's
requests are counted per device against API_RATE_LIMIT, like a key's. The device is
kept per process under the configuration generation read in the same trip to the
cache (traders.devices), so a removed device is still refused at once."""

from dataclasses import dataclass

from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from core import logs
from core.auth import count_failed_authentication, other_key_round
from core.client_address import client_address
from core.error_codes import ErrorCode, message_for
from core.keys import hash_key

from .devices import device_for_token
from .models import Device

HEADER = "HTTP_X_DEVICE_TOKEN"


@dataclass
class DevicePrincipal:
    device: Device
    key_hash: str
    is_authenticated: bool = True


class DeviceTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        address = client_address(request)
        raw = request.META.get(HEADER, "").strip()
        digest = hash_key(raw) if raw else ""
        window, count = other_key_round(address, digest)
        device = device_for_token(raw, digest) if raw else None
        if device is None:
            count_failed_authentication(address)
            raise AuthenticationFailed(
                message_for(ErrorCode.INVALID_DEVICE_TOKEN), code=ErrorCode.INVALID_DEVICE_TOKEN
            )
        if window is not None:
            request.rate_counted = (window, count)
        logs.bind(trader_id=str(device.trader_id), device_id=str(device.pk))
        return DevicePrincipal(device=device, key_hash=digest), device

    def authenticate_header(self, request):
        return "X-Device-Token"
