"""The API's errors as exceptions: one class per status the contract names, each
carrying the body's `code`, `message` and per-field `errors`."""

from typing import Any


class PaymentsvcError(Exception):
    """Base of everything this package raises."""


class ApiConnectionError(PaymentsvcError):
    """The service could not be reached (after every allowed retry)."""


class ApiError(PaymentsvcError):
    def __init__(
        self,
        status: int,
        message: str,
        code: str,
        errors: dict[str, list[str]] | None = None,
        *,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.message = message
        self.code = code
        self.errors = errors or {}
        self.body = body
        self.headers = headers or {}

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id")


class ValidationError(ApiError):
    """400: the request was refused as it stands; `errors` names the fields."""


class AuthenticationError(ApiError):
    """401: the API key is missing, unknown or revoked."""


class InsufficientFundsError(ApiError):
    """402: a Sell order needs more than the available balance."""


class PermissionDeniedError(ApiError):
    """403: the key may not act on this object or endpoint."""


class NotFoundError(ApiError):
    """404: no such object for this key."""


class ConflictError(ApiError):
    """409: the object's state does not allow the change."""


class PayloadTooLargeError(ApiError):
    """413: a file is larger than the service accepts."""


class UnsupportedMediaTypeError(ApiError):
    """415: a file's type is not accepted."""


class IdempotencyError(ApiError):
    """422: the Idempotency-Key was used before with a different request."""


class RateLimitError(ApiError):
    """429: the request rate limit or the anti-fraud cap. `retry_after` (seconds)
    is set when the service said when to come back."""

    def __init__(self, *args, retry_after: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


class ServerError(ApiError):
    """5xx, including the contract's 500 `No available traders ...`."""


class WebhookVerificationError(PaymentsvcError):
    """A webhook's signature, timestamp or body did not verify."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: ValidationError,
    401: AuthenticationError,
    402: InsufficientFundsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: IdempotencyError,
    429: RateLimitError,
}


def error_class(status: int) -> type[ApiError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else ApiError
