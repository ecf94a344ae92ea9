def test_demo_shop_starts_with_100000_available(shop):
    response = shop.get("/api/v1/finance/balance")
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["deposit"]["available"] == "100000.00"
    assert body["deposit"]["frozen"] == "0.00"
    assert body["deposit"]["total"] == "100000.00"
    assert body["deposit"]["currency"] == "RUB"


def test_balance_without_key_is_401(anonymous, demo):
    response = anonymous.get("/api/v1/finance/balance")
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "API key is required",
        "code": "api_key_required",
    }
