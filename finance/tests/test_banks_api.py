import pytest

from core.testing import ApiClient
from finance.banks import BANKS
from finance.tests.factories import (
    CardMethodFactory,
    PaymentMethodFactory,
    TerminalFactory,
    TerminalMethodFactory,
)

URL = "/api/v1/banks"


@pytest.fixture
def terminal(db):
    vtb = PaymentMethodFactory(name="VTB SBP", nspk_code="100000000005")
    sber = PaymentMethodFactory(name="Sberbank SBP", nspk_code="100000000111")
    sber_card = PaymentMethodFactory(name="Sberbank other", nspk_code="100000000111")
    aggregate = PaymentMethodFactory(name="SBP", nspk_code=None, is_aggregate=True, sell=False)
    card = CardMethodFactory(name="Bank card")
    inactive = PaymentMethodFactory(name="MTS SBP", nspk_code="100000000017", is_active=False)
    unknown = PaymentMethodFactory(name="Local SBP", nspk_code="100000000999")
    unknown.name_ru = "Местный (СБП)"
    unknown.save()
    PaymentMethodFactory(name="Ozon Bank SBP", nspk_code="100000000273")  # not enabled here
    terminal = TerminalFactory(methods=[vtb, sber, sber_card, aggregate, card, inactive, unknown])
    disabled = PaymentMethodFactory(name="Alfa-Bank SBP", nspk_code="100000000008")
    TerminalMethodFactory(terminal=terminal, method=disabled, enabled=False)
    return terminal


def test_lists_the_banks_behind_the_terminals_enabled_methods(terminal):
    body = ApiClient(terminal.raw_key).get(URL).json()
    assert body["success"] is True and body["message"] == "OK"
    assert body["banks"] == [
        {"nspk_code": "100000000111", "name": "Sberbank", "name_ru": "Сбербанк"},
        {"nspk_code": "100000000005", "name": "VTB", "name_ru": "ВТБ"},
        {"nspk_code": "100000000999", "name": "Local SBP", "name_ru": "Местный (СБП)"},
    ]


def test_the_table_names_the_six_banks():
    names = {(b.name, b.name_ru) for b in BANKS.values()}
    assert names == {
        ("Sberbank", "Сбербанк"),
        ("T-Bank", "Т-Банк"),
        ("Alfa-Bank", "Альфа-Банк"),
        ("VTB", "ВТБ"),
        ("Ozon Bank", "Озон Банк"),
        ("MTS Bank", "МТС Банк"),
    }


def test_the_demo_shop_sees_the_demo_banks(shop):
    banks = {b["name"]: b["name_ru"] for b in shop.get(URL).json()["banks"]}
    assert banks["Sberbank"] == "Сбербанк" and banks["T-Bank"] == "Т-Банк"
    assert banks["Ozon Bank"] == "Озон Банк"


def test_needs_a_terminal_key(anonymous, db):
    response = anonymous.get(URL)
    assert response.status_code == 401
    assert response.json()["success"] is False
