"""What the sync and async clients share: how a call is described, encoded, retried
and turned into a result or an error. Only the sending differs between the two."""

import json
import mimetypes
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from email.utils import parsedate_to_datetime
from enum import Enum
from typing import Any

import httpx

from .errors import ApiError, RateLimitError, error_class
from .models import Model, Page

USER_AGENT = "paymentsvc-client-python/0.1.0"


@dataclass
class RetryPolicy:
    """Bounded retries with jittered exponential backoff.

    Retried: connection errors and timeouts, 503, and 429 when the service says in
    `Retry-After` when to come back (an anti-fraud 429 does not, and repeating it
    would not help). A POST always carries an `Idempotency-Key`, the same one on
    every attempt, so a retried creation is answered from the stored first response
    instead of creating twice.
    """

    max_retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 8.0
    # A Retry-After longer than this is not waited out: the error is raised.
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            # At least what the service asked for, spread a little so clients that
            # were refused together do not come back together.
            return retry_after + random.uniform(0, min(1.0, retry_after * 0.1 + 0.05))
        ceiling = min(self.max_backoff, self.backoff * (2**attempt))
        return random.uniform(ceiling / 2, ceiling)


@dataclass
class Call:
    method: str
    path: str
    params: dict[str, Any] | None = None
    json: Any = None
    files: list[tuple[str, Any]] | None = None
    data: dict[str, Any] | None = None
    # The key of the body's envelope that holds the result ("order", "orders"...).
    unwrap: str | None = None
    # The envelope may be absent: the result is then the body itself.
    unwrap_optional: bool = False
    model: type[Model] | None = None
    page: bool = False
    many: bool = False
    raw: bool = False
    # The service stores the first answer under the Idempotency-Key (creations), so
    # a POST may be retried even when it may have reached the service.
    replayable: bool = False
    idempotency_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        if self.method == "POST" and not self.idempotency_key:
            self.idempotency_key = str(uuid.uuid4())


def _to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def query(**params: Any) -> dict[str, Any]:
    """Query parameters without the ones left out; lists become repeated names."""
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, list | tuple | set):
            out[name] = [_to_text(v) for v in value]
        else:
            out[name] = _to_text(value)
    return out


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body without the fields left out (None)."""
    return {name: value for name, value in fields.items() if value is not None}


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime | date):
        return _to_text(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(payload: Any) -> bytes:
    return json.dumps(payload, default=_json_default).encode()


def upload_files(files: list[Any] | None) -> list[tuple[str, Any]] | None:
    """(name, bytes) or (name, bytes, content type) pairs as multipart parts."""
    if not files:
        return None
    parts = []
    for item in files:
        name, content, *rest = item
        content_type = rest[0] if rest else None
        if content_type is None:
            content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        parts.append(("files", (name, content, content_type)))
    return parts


def build_request(http: httpx.Client | httpx.AsyncClient, call: Call) -> httpx.Request:
    headers = dict(call.headers)
    if call.idempotency_key:
        headers["Idempotency-Key"] = call.idempotency_key
    kwargs: dict[str, Any] = {"params": call.params, "headers": headers}
    if call.files is not None or call.data is not None:
        kwargs["files"] = call.files
        kwargs["data"] = {k: _to_text(v) for k, v in (call.data or {}).items() if v is not None}
    elif call.json is not None:
        headers["Content-Type"] = "application/json"
        kwargs["content"] = dumps(call.json)
    return http.build_request(call.method, call.path, **kwargs)


def retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def should_retry_response(
    response: httpx.Response, policy: RetryPolicy
) -> tuple[bool, float | None]:
    """Whether to retry this answer, and the wait the service asked for (if any)."""
    if response.status_code not in (429, 503):
        return False, None
    after = retry_after_seconds(response)
    if after is not None and after > policy.max_retry_after:
        return False, after
    if response.status_code == 429 and after is None:
        return False, None
    return True, after


def may_retry_transport_error(call: Call, exc: httpx.TransportError) -> bool:
    if call.method in ("GET", "HEAD", "PUT", "DELETE"):
        return True
    # A POST that may have reached the service is only repeated where the service
    # answers a repeated key from its store; elsewhere only when it surely did not.
    return call.replayable or isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)


def _loads(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return json.loads(response.content, parse_float=Decimal)
    except ValueError:
        return None


def raise_for_error(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    payload = _loads(response)
    if isinstance(payload, dict):
        message = str(payload.get("message") or response.reason_phrase)
        code = str(payload.get("code") or f"http_{response.status_code}")
        errors = payload.get("errors") if isinstance(payload.get("errors"), dict) else None
    else:
        message = response.text[:200] or response.reason_phrase
        code = f"http_{response.status_code}"
        errors = None
    cls = error_class(response.status_code)
    kwargs: dict[str, Any] = {"body": payload, "headers": dict(response.headers)}
    if cls is RateLimitError:
        kwargs["retry_after"] = retry_after_seconds(response)
    raise cls(response.status_code, message, code, errors, **kwargs)


def parse(call: Call, response: httpx.Response) -> Any:
    raise_for_error(response)
    if call.raw:
        return response.content
    payload = _loads(response)
    if call.unwrap is not None:
        if isinstance(payload, dict) and call.unwrap in payload:
            payload = payload[call.unwrap]
        elif not (call.unwrap_optional and isinstance(payload, dict)):
            raise ApiError(
                response.status_code,
                f"Unexpected response: no {call.unwrap!r} in the body",
                "unexpected_response",
                body=payload,
                headers=dict(response.headers),
            )
    if call.model is None:
        return payload
    if call.page:
        return Page.from_api(payload, call.model)
    if call.many:
        return [call.model.from_api(item) for item in payload]
    return call.model.from_api(payload)


def attempts(http: httpx.Client | httpx.AsyncClient, call: Call, policy: RetryPolicy):
    """The retry loop, without the I/O: yields a request to send (and is sent back
    the response, or the transport error) or a number of seconds to sleep; returns
    the parsed result. The sync and async clients only drive it."""
    from .errors import ApiConnectionError

    attempt = 0
    while True:
        outcome = yield build_request(http, call)
        if isinstance(outcome, httpx.TransportError):
            if attempt >= policy.max_retries or not may_retry_transport_error(call, outcome):
                raise ApiConnectionError(f"{call.method} {call.path}: {outcome}") from outcome
            wait = policy.delay(attempt, None)
        else:
            retry, after = should_retry_response(outcome, policy)
            if not retry or attempt >= policy.max_retries:
                return parse(call, outcome)
            wait = policy.delay(attempt, after)
        attempt += 1
        yield wait
