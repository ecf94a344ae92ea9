from core.testing import ApiClient
from finance.tests.factories import TerminalFactory


def test_balance_shows_what_was_deposited(db):
    terminal = TerminalFactory(available="100000.00")
    response = ApiClient(terminal.raw_key).get("/api/v1/finance/balance")
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["deposit"]["available"] == "100000.00"
    assert body["deposit"]["frozen"] == "0.00"
    assert body["deposit"]["total"] == "100000.00"
    assert body["deposit"]["currency"] == "RUB"


def test_a_new_terminal_has_a_zero_balance(merchant):
    body = merchant.get("/api/v1/finance/balance").json()
    assert body["deposit"]["available"] == body["deposit"]["total"] == "0.00"


def test_balance_without_key_is_401(anonymous, db):
    response = anonymous.get("/api/v1/finance/balance")
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "API key is required",
        "code": "api_key_required",
    }
