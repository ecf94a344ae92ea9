"""The error catalogue: every code the API answers with, its HTTP status and its
default message, in one place beside the handler (errors.py).

Domain exceptions carry a code only; the handler looks the status up here. A code
is written as `ErrorCode.X` everywhere, never as a string of its own.
"""

from enum import StrEnum


class ErrorCode(StrEnum):
    # Generic
    BAD_REQUEST = "bad_request"
    VALIDATION_ERROR = "validation_error"
    MALFORMED_REQUEST = "malformed_request"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    CONFLICT = "conflict"
    TOO_MANY_REQUESTS = "too_many_requests"
    RATE_LIMITED = "rate_limited"
    AUTH_RATE_LIMITED = "auth_rate_limited"
    ERROR = "error"
    INTERNAL_ERROR = "internal_error"
    SERVICE_UNAVAILABLE = "service_unavailable"
    INSUFFICIENT_STORAGE = "insufficient_storage"
    # Authentication
    API_KEY_REQUIRED = "api_key_required"
    INVALID_API_KEY = "invalid_api_key"
    INVALID_DEVICE_TOKEN = "invalid_device_token"
    # Idempotency
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    IDEMPOTENCY_IN_FLIGHT = "idempotency_in_flight"
    # Finance
    INSUFFICIENT_FUNDS = "insufficient_funds"
    LEDGER_ERROR = "ledger_error"
    # Orders
    PAYMENT_METHOD_REQUIRED = "payment_method_required"
    PAYMENT_METHOD_NOT_FOUND = "payment_method_not_found"
    SELL_NOT_SUPPORTED = "sell_not_supported"
    CUSTOMER_ACCOUNT_REQUIRED = "customer_account_required"
    CUSTOMER_ACCOUNT_BLACKLISTED = "customer_account_blacklisted"
    AGGREGATE_METHOD_BUY_ONLY = "aggregate_method_buy_only"
    AMOUNT_OUT_OF_LIMITS = "amount_out_of_limits"
    ANTIFRAUD_PENDING_LIMIT = "antifraud_pending_limit"
    NO_AVAILABLE_TRADERS = "no_available_traders"
    ORDER_NOT_FOUND = "order_not_found"
    ORDER_NOT_PENDING = "order_not_pending"
    SANDBOX_ONLY = "sandbox_only"
    # Payment form
    FORM_SELL_NOT_SUPPORTED = "form_sell_not_supported"
    FORM_NOT_ACTIVATED = "form_not_activated"
    BUTTON_NOT_OFFERED = "button_not_offered"
    METHOD_NOT_OFFERED = "method_not_offered"
    SESSION_STATE_CONFLICT = "session_state_conflict"
    # Disputes
    DISPUTE_EXISTS = "dispute_exists"
    DISPUTE_PROCESSED = "dispute_processed"
    ORDER_OF_ANOTHER_TERMINAL = "order_of_another_terminal"
    TOO_MANY_FILES = "too_many_files"
    FILE_TOO_LARGE = "file_too_large"
    UNSUPPORTED_FILE_TYPE = "unsupported_file_type"
    DISPUTE_AMOUNT_TOO_LARGE = "dispute_amount_too_large"
    # Events and webhook deliveries
    EVENT_NOT_FOUND = "event_not_found"
    DELIVERY_NOT_FOUND = "delivery_not_found"
    # Payers' receipts
    RECEIPT_EMPTY = "receipt_empty"
    RECEIPT_TOO_LARGE = "receipt_too_large"
    RECEIPT_TYPE = "receipt_type"
    RECEIPT_CLOSED = "receipt_closed"
    RECEIPT_TOO_MANY = "receipt_too_many"
    RECEIPT_NOT_FOUND = "receipt_not_found"
    # Traders
    REQUISITE_NOT_FOUND = "requisite_not_found"
    DISABLED_BY_OPERATOR = "disabled_by_operator"

    METRICS_UNAUTHORIZED = "metrics_unauthorized"
    METRICS_FORBIDDEN = "metrics_forbidden"


# code -> (HTTP status, default message)
CATALOGUE: dict[ErrorCode, tuple[int, str]] = {
    ErrorCode.BAD_REQUEST: (400, "Bad request"),
    ErrorCode.VALIDATION_ERROR: (400, "Invalid request"),
    ErrorCode.MALFORMED_REQUEST: (400, "Malformed request"),
    ErrorCode.FORBIDDEN: (403, "Forbidden"),
    ErrorCode.NOT_FOUND: (404, "Not found"),
    ErrorCode.METHOD_NOT_ALLOWED: (405, "Method not allowed"),
    ErrorCode.NOT_ACCEPTABLE: (406, "Not acceptable"),
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: (415, "Unsupported media type"),
    ErrorCode.CONFLICT: (409, "Conflict"),
    ErrorCode.TOO_MANY_REQUESTS: (429, "Too many requests"),
    ErrorCode.RATE_LIMITED: (429, "Request rate limit exceeded"),
    ErrorCode.AUTH_RATE_LIMITED: (429, "Too many failed authentications from this address"),
    ErrorCode.ERROR: (400, "Request failed"),
    ErrorCode.INTERNAL_ERROR: (500, "Internal server error"),
    ErrorCode.SERVICE_UNAVAILABLE: (503, "Service temporarily unavailable, try again"),
    ErrorCode.INSUFFICIENT_STORAGE: (
        507,
        "Evidence could not be stored; nothing was saved, try again later",
    ),
    ErrorCode.API_KEY_REQUIRED: (401, "API key is required"),
    ErrorCode.INVALID_API_KEY: (401, "Invalid API key"),
    ErrorCode.INVALID_DEVICE_TOKEN: (401, "Invalid device token"),
    ErrorCode.IDEMPOTENCY_KEY_REUSED: (
        422,
        "Idempotency-Key was already used with a different request body",
    ),
    ErrorCode.IDEMPOTENCY_IN_FLIGHT: (
        409,
        "A request with this Idempotency-Key is still in progress",
    ),
    ErrorCode.INSUFFICIENT_FUNDS: (402, "Insufficient funds"),
    ErrorCode.LEDGER_ERROR: (409, "Ledger error"),
    ErrorCode.PAYMENT_METHOD_REQUIRED: (400, "Payment method ID or method type is required"),
    ErrorCode.PAYMENT_METHOD_NOT_FOUND: (404, "Payment method not found"),
    ErrorCode.SELL_NOT_SUPPORTED: (400, "Only Buy orders are supported for this terminal"),
    ErrorCode.CUSTOMER_ACCOUNT_REQUIRED: (400, "Customer account is required"),
    ErrorCode.CUSTOMER_ACCOUNT_BLACKLISTED: (409, "Customer account is blacklisted"),
    ErrorCode.AGGREGATE_METHOD_BUY_ONLY: (400, "The aggregate method works only for Buy orders"),
    ErrorCode.AMOUNT_OUT_OF_LIMITS: (
        409,
        "Expectation Failed. Amount for the chosen payment method doesn't meet limits",
    ),
    ErrorCode.ANTIFRAUD_PENDING_LIMIT: (
        429,
        "User has reached the maximum limit of pending orders. Please try again later",
    ),
    ErrorCode.NO_AVAILABLE_TRADERS: (500, "No available traders that match order requirements"),
    ErrorCode.ORDER_NOT_FOUND: (404, "Order not found"),
    ErrorCode.ORDER_NOT_PENDING: (409, "Order is not Pending"),
    ErrorCode.SANDBOX_ONLY: (403, "Sandbox endpoints need a sandbox terminal's key"),
    ErrorCode.FORM_SELL_NOT_SUPPORTED: (400, "The payment form supports only Buy orders"),
    ErrorCode.FORM_NOT_ACTIVATED: (409, "The payment form is not activated for this terminal"),
    ErrorCode.BUTTON_NOT_OFFERED: (400, "The button is not configured for this terminal"),
    ErrorCode.METHOD_NOT_OFFERED: (400, "This payment method is not available"),
    ErrorCode.SESSION_STATE_CONFLICT: (409, "The session is not in a state that allows this"),
    ErrorCode.DISPUTE_EXISTS: (400, "A dispute for this order already exists"),
    ErrorCode.DISPUTE_PROCESSED: (409, "The dispute has already been processed"),
    ErrorCode.ORDER_OF_ANOTHER_TERMINAL: (403, "The order does not belong to this terminal"),
    ErrorCode.TOO_MANY_FILES: (400, "Too many files"),
    ErrorCode.FILE_TOO_LARGE: (413, "File is larger than 5 MB"),
    ErrorCode.UNSUPPORTED_FILE_TYPE: (415, "File type is not allowed"),
    ErrorCode.DISPUTE_AMOUNT_TOO_LARGE: (
        400,
        "Invalid amount: more than the maximum of the order's method range",
    ),
    ErrorCode.EVENT_NOT_FOUND: (404, "Event not found"),
    ErrorCode.DELIVERY_NOT_FOUND: (404, "Delivery not found"),
    ErrorCode.RECEIPT_EMPTY: (400, "No file was sent"),
    ErrorCode.RECEIPT_TOO_LARGE: (413, "File is larger than 5 MB"),
    ErrorCode.RECEIPT_TYPE: (400, "File is not an image or a PDF (judged from its content)"),
    ErrorCode.RECEIPT_CLOSED: (400, "The order no longer takes receipts"),
    ErrorCode.RECEIPT_TOO_MANY: (400, "At most 3 receipts per payment"),
    ErrorCode.RECEIPT_NOT_FOUND: (404, "Receipt not found"),
    ErrorCode.REQUISITE_NOT_FOUND: (404, "Requisite not found"),
    ErrorCode.DISABLED_BY_OPERATOR: (
        409,
        "This requisite was switched off by an operator; only an operator can switch it on",
    ),
    ErrorCode.METRICS_UNAUTHORIZED: (401, "Metrics need Authorization: Bearer <METRICS_TOKEN>"),
    ErrorCode.METRICS_FORBIDDEN: (403, "Metrics are served only to loopback clients"),
}


def status_for(code: str) -> int:
    return CATALOGUE[ErrorCode(code)][0]


def message_for(code: str) -> str:
    return CATALOGUE[ErrorCode(code)][1]
