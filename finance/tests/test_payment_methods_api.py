import pytest

from core.testing import ApiClient
from finance.tests.factories import CardMethodFactory, PaymentMethodFactory, TerminalFactory

URL = "/api/v1/finance/payment_methods"


def by_name(body):
    return {m["method_name"]: m for m in body["payment_methods"]}


@pytest.fixture
def methods(db):
    return {
        "SBP": PaymentMethodFactory(name="SBP", nspk_code=None, is_aggregate=True, sell=False),
        "Sberbank SBP": PaymentMethodFactory(name="Sberbank SBP", nspk_code="100000000111"),
        "Bank card": CardMethodFactory(name="Bank card"),
        "Legacy card": CardMethodFactory(name="Legacy card", is_active=False, sell=False),
    }


@pytest.fixture
def merchant(methods) -> ApiClient:
    return ApiClient(TerminalFactory(methods=list(methods.values())).raw_key)


def test_lists_the_terminals_enabled_methods_with_ranges_as_numbers(merchant, methods):
    PaymentMethodFactory(name="Not enabled here")
    body = merchant.get(URL).json()
    assert body["success"] is True
    listed = by_name(body)
    assert set(listed) == set(methods)
    sber = listed["Sberbank SBP"]
    assert (
        sber["method_type"] == "SBP"
        and sber["method_currency"] == "RUB"
        and sber["nspk_code"] == "100000000111"
    )
    ranges = {r["fee_side"]: r for r in sber["ranges"]}
    assert ranges["Buy"] == {
        "fee_side": "Buy",
        "currency": "RUB",
        "min_amount": 100,
        "max_amount": 300000,
        "fee": 5,
        "fixed_fee": None,
    }
    assert ranges["Sell"] == {
        "fee_side": "Sell",
        "currency": "RUB",
        "min_amount": 500,
        "max_amount": 100000,
        "fee": 3,
        "fixed_fee": 50,
    }
    assert isinstance(ranges["Sell"]["min_amount"], int | float)
    assert listed["SBP"]["nspk_code"] is None
    assert [r["fee_side"] for r in listed["SBP"]["ranges"]] == ["Buy"]


def test_active_true_hides_inactive_methods(merchant):
    assert "Legacy card" not in by_name(merchant.get(URL, {"active": "true"}).json())
    assert "Legacy card" in by_name(merchant.get(URL, {"active": "false"}).json())


def test_method_type_filter_takes_several_values(merchant):
    assert set(by_name(merchant.get(URL, {"method_type": "BankCard"}).json())) == {
        "Bank card",
        "Legacy card",
    }
    both = merchant.get(f"{URL}?method_type=BankCard&method_type=SBP").json()
    assert len(both["payment_methods"]) == 4


@pytest.mark.parametrize("params", [{"active": "maybe"}, {"method_type": "Crypto"}])
def test_bad_filters_are_400(merchant, params):
    response = merchant.get(URL, params)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == list(params)
