import pytest

URL = "/api/v1/finance/payment_methods"


def by_name(body):
    return {m["method_name"]: m for m in body["payment_methods"]}


def test_lists_all_enabled_methods_with_ranges_as_numbers(shop, demo):
    body = shop.get(URL).json()
    assert body["success"] is True
    methods = by_name(body)
    assert set(methods) == {
        "SBP",
        "Sberbank SBP",
        "T-Bank SBP",
        "Alfa-Bank SBP",
        "VTB SBP",
        "Bank card",
        "Ozon Bank SBP",
        "Legacy card",
    }
    sber = methods["Sberbank SBP"]
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
    assert methods["SBP"]["nspk_code"] is None
    assert [r["fee_side"] for r in methods["SBP"]["ranges"]] == ["Buy"]


def test_active_true_hides_inactive_methods(shop, demo):
    assert "Legacy card" not in by_name(shop.get(URL, {"active": "true"}).json())
    assert "Legacy card" in by_name(shop.get(URL, {"active": "false"}).json())


def test_method_type_filter_takes_several_values(shop, demo):
    assert set(by_name(shop.get(URL, {"method_type": "BankCard"}).json())) == {
        "Bank card",
        "Legacy card",
    }
    both = shop.get(f"{URL}?method_type=BankCard&method_type=SBP").json()
    assert len(both["payment_methods"]) == 8


@pytest.mark.parametrize("params", [{"active": "maybe"}, {"method_type": "Crypto"}])
def test_bad_filters_are_400(shop, demo, params):
    response = shop.get(URL, params)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == list(params)
