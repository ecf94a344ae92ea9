"""The error catalogue: every code has a status and a message, and the domain
exceptions answer with the status their code is catalogued with."""

import pytest

from core.error_codes import CATALOGUE, ErrorCode, message_for, status_for
from core.errors import (
    Conflict,
    Forbidden,
    InsufficientFunds,
    InvalidRequest,
    NoAvailableTraders,
    NotFound,
    ServiceError,
    TooManyRequests,
    error_body,
)
from disputes.services import DisputeExists, PayloadTooLarge, UnsupportedFileType
from finance.services import LedgerError
from forms_ui.services import SessionStateError
from orders.services import OrderNotPending


def test_every_code_is_catalogued():
    assert set(CATALOGUE) == set(ErrorCode)
    for status, message in CATALOGUE.values():
        assert 400 <= status < 600 and message


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (ServiceError, 400, "bad_request"),
        (InvalidRequest, 400, "validation_error"),
        (Forbidden, 403, "forbidden"),
        (NotFound, 404, "not_found"),
        (Conflict, 409, "conflict"),
        (InsufficientFunds, 402, "insufficient_funds"),
        (TooManyRequests, 429, "too_many_requests"),
        (NoAvailableTraders, 500, "no_available_traders"),
        (OrderNotPending, 409, "order_not_pending"),
        (SessionStateError, 409, "session_state_conflict"),
        (LedgerError, 409, "ledger_error"),
        (DisputeExists, 400, "dispute_exists"),
        (PayloadTooLarge, 413, "file_too_large"),
        (UnsupportedFileType, 415, "unsupported_file_type"),
    ],
)
def test_an_exception_answers_with_its_codes_status(exc, status, code):
    error = exc()
    assert (error.status, error.code, error.message) == (status, code, message_for(code))


def test_a_code_given_when_raising_decides_the_status():
    error = NotFound(code=ErrorCode.ORDER_NOT_FOUND)
    assert (error.status, error.message) == (404, "Order not found")
    assert status_for(ErrorCode.ANTIFRAUD_PENDING_LIMIT) == 429


def test_the_body_carries_the_code_as_a_plain_string():
    body = error_body("Order not found", ErrorCode.ORDER_NOT_FOUND)
    assert body == {"success": False, "message": "Order not found", "code": "order_not_found"}
    assert type(body["code"]) is str
