"""Verifying a received webhook (Standard Webhooks) and reading it as a typed event."""

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal

from standardwebhooks.webhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError as _LibraryError

from .errors import WebhookVerificationError
from .models import Event


def verify_webhook(
    body: bytes | str, headers: Mapping[str, str], secret: str | Sequence[str]
) -> Event:
    """Check the `webhook-signature` of a delivery against the terminal's `whsec_`
    secret (or any of several, while a rotated secret is being replaced) and the
    `webhook-timestamp` against replays (5 minutes), then return the event.

    `body` must be the raw request body, byte for byte as received."""
    if isinstance(body, str):
        body = body.encode()
    lowered = {str(k).lower(): v for k, v in headers.items()}
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise WebhookVerificationError("No secret given")
    last_error: Exception | None = None
    for candidate in secrets:
        try:
            Webhook(candidate).verify(body, lowered)
            break
        except (_LibraryError, ValueError, TypeError) as exc:
            last_error = exc
    else:
        raise WebhookVerificationError(str(last_error) or "Invalid signature") from last_error
    try:
        payload = json.loads(body, parse_float=Decimal)
    except ValueError as exc:
        raise WebhookVerificationError("The body is not JSON") from exc
    if not isinstance(payload, dict):
        raise WebhookVerificationError("The body is not a JSON object")
    if payload.get("id") != lowered.get("webhook-id"):
        raise WebhookVerificationError("The body's id differs from the webhook-id header")
    return Event.from_api(payload)
