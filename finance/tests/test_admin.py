from dataclasses import dataclass
from decimal import Decimal

import pytest

from finance.models import ApiKey, Balance, Transaction
from finance.services import ledger_check
from finance.tests.factories import PaymentMethodFactory, TerminalFactory

PASSWORD = "operator-test-password"


@dataclass
class Rows:
    shop: object
    closed_shop: object
    methods: dict


@pytest.fixture
def rows(db, django_user_model) -> Rows:
    """An operator, a funded terminal with three methods enabled, and an empty terminal."""
    django_user_model.objects.create_superuser("operator", "operator@example.com", PASSWORD)
    methods = {
        name: PaymentMethodFactory(name=name) for name in ("Sberbank SBP", "T-Bank SBP", "Other")
    }
    return Rows(
        shop=TerminalFactory(name="Demo Shop", available="100000.00", methods=methods.values()),
        closed_shop=TerminalFactory(name="Closed Shop"),
        methods=methods,
    )


def login(client):
    assert client.login(username="operator", password=PASSWORD)
    client.cookies["django_language"] = "en"  # these pages' words, in English
    return client


def test_operator_tops_up_with_a_comment_through_a_ledger_transaction(client, rows):
    login(client)
    balance = Balance.objects.get(terminal=rows.shop)
    response = client.post(
        f"/admin/finance/balance/{balance.pk}/adjust/", {"amount": "500.25", "comment": "Wire 42"}
    )
    assert response.status_code == 302
    balance.refresh_from_db()
    assert balance.available == Decimal("100500.25")
    txn = Transaction.objects.order_by("-created_at").first()
    assert (txn.transaction_type, txn.amount, txn.client_description, txn.created_by) == (
        "deposit",
        Decimal("500.25"),
        "Wire 42",
        "operator",
    )
    assert ledger_check() == []


def test_operator_cannot_withdraw_more_than_available(client, rows):
    login(client)
    balance = Balance.objects.get(terminal=rows.closed_shop)
    response = client.post(
        f"/admin/finance/balance/{balance.pk}/adjust/", {"amount": "-1", "comment": "x"}
    )
    assert response.status_code == 200
    assert b"Insufficient funds" in response.content
    assert not Transaction.objects.filter(balance=balance).exists()


def test_ledger_is_read_only_in_admin(client, rows):
    login(client)
    txn = Transaction.objects.first()
    assert (
        client.post(f"/admin/finance/transaction/{txn.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert client.get("/admin/finance/transaction/add/").status_code == 403


def test_the_ledger_in_russian_names_its_rows_in_russian(client, rows):
    """A row keeps the service's words as the API gives them; the admin's list and the
    row's page say them in Russian, its type and its balance's kind too."""
    login(client)
    client.cookies["django_language"] = "ru"
    txn = Transaction.objects.first()
    Transaction.objects.filter(pk=txn.pk).update(client_description="Revenue c-17")
    listed = client.get("/admin/finance/transaction/").content.decode()
    page = client.get(f"/admin/finance/transaction/{txn.pk}/change/").content.decode()
    for html in (listed, page):
        assert "Доход по заказу c-17" in html and "Revenue" not in html
    assert "deposit" not in page.split("<title>")[1].split("</title>")[0]
    txn.refresh_from_db()
    assert txn.client_description == "Revenue c-17"


def test_generate_and_revoke_keys(client, rows, anonymous):
    login(client)
    response = client.post(
        "/admin/finance/terminal/",
        {"action": "generate_api_key", "_selected_action": [str(rows.closed_shop.pk)]},
        follow=True,
    )
    text = response.content.decode()
    raw = text.split("New key for Closed Shop: ")[1].split(" ")[0]
    anonymous.key = raw
    assert anonymous.get("/api/v1/finance/balance").status_code == 200
    key = ApiKey.objects.get(key_prefix=raw[:8])
    assert raw not in (key.key_hash, key.key_prefix)
    client.post("/admin/finance/apikey/", {"action": "revoke", "_selected_action": [key.pk]})
    response = anonymous.get("/api/v1/finance/balance")
    assert response.status_code == 401 and response.json()["message"] == "Invalid API key"


def test_admin_pages_render(client, rows):
    login(client)
    for url in [
        "/admin/finance/terminal/",
        f"/admin/finance/terminal/{rows.shop.pk}/change/",
        "/admin/finance/balance/",
        "/admin/finance/transaction/",
        "/admin/finance/paymentmethod/",
        "/admin/orders/order/",
        "/admin/orders/trader/",
        "/admin/finance/blacklistedaccount/add/",
    ]:
        assert client.get(url).status_code == 200, url


def test_blacklist_entries_are_normalised(client, rows):
    login(client)
    client.post(
        "/admin/finance/blacklistedaccount/add/",
        {"account": "8 (999) 555-44-33", "comment": "fraud"},
    )
    from finance.models import BlacklistedAccount

    assert BlacklistedAccount.objects.filter(account="+79995554433").exists()


# --- what operators may not do by mistake ------------------------------------------------


def _inline_management(prefix: str, rows: list[dict], initial: int = 0) -> dict:
    data = {
        f"{prefix}-TOTAL_FORMS": str(len(rows)),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    for i, row in enumerate(rows):
        data.update({f"{prefix}-{i}-{k}": v for k, v in row.items()})
    return data


def _terminal_form(terminal, method_rows=(), initial: int = 0) -> dict:
    return {
        "client": str(terminal.client_id),
        "name": terminal.name,
        "currency": "RUB",
        "integration_type": terminal.integration_type,
        "form_activated": "on",
        "is_active": "on",
        "antifraud_max_pending": "",
        "webhook_urls": "[]",
        **_inline_management("methods", list(method_rows), initial=initial),
        **_inline_management("api_keys", []),
    }


def _method_form(method, ranges: list[dict], **changes) -> dict:
    data = {
        "name": method.name,
        "method_type": method.method_type,
        "currency": method.currency,
        "nspk_code": method.nspk_code or "",
        "is_active": "on",
        "bank_slug": method.bank_slug,
        "deeplink_template": method.deeplink_template,
        "hint_ru": method.hint_ru,
        "hint_en": method.hint_en,
        **changes,
    }
    data.update(_inline_management("ranges", ranges))
    return data


def test_view_only_staff_get_no_state_changing_actions(client, rows):
    from django.contrib.auth.models import Permission, User

    viewer = User.objects.create_user("viewer", password="a-long-viewer-password-1", is_staff=True)
    viewer.user_permissions.set(
        Permission.objects.filter(codename__in=["view_terminal", "view_apikey", "view_order"])
    )
    client.force_login(viewer)
    client.cookies["django_language"] = "en"  # these pages' words, in English
    for url in ["/admin/finance/terminal/", "/admin/finance/apikey/", "/admin/orders/order/"]:
        page = client.get(url).content.decode()
        for action in ["generate_api_key", "rotate_webhook_secret", "revoke", "cancel_orders"]:
            assert f'value="{action}"' not in page, (url, action)
    count = ApiKey.objects.count()
    client.post(
        "/admin/finance/terminal/",
        {"action": "generate_api_key", "_selected_action": [str(rows.shop.pk)]},
    )
    assert ApiKey.objects.count() == count


def test_a_key_cannot_be_moved_to_another_terminal(client, rows):
    login(client)
    key = ApiKey.objects.filter(terminal=rows.shop).first()
    client.post(
        f"/admin/finance/apikey/{key.pk}/change/",
        {"terminal": str(rows.closed_shop.pk), "name": "moved"},
    )
    key.refresh_from_db()
    assert key.terminal_id == rows.shop.pk


def test_the_webhook_secret_is_not_on_the_terminal_page(client, rows):
    login(client)
    page = client.get(f"/admin/finance/terminal/{rows.shop.pk}/change/").content.decode()
    assert rows.shop.webhook_secret not in page
    assert 'name="webhook_secret"' not in page


def test_secrets_shown_once_stay_out_of_cookies(client, rows):
    login(client)
    response = client.post(
        "/admin/finance/terminal/",
        {"action": "rotate_webhook_secret", "_selected_action": [str(rows.shop.pk)]},
    )
    assert "messages" not in response.cookies
    rows.shop.refresh_from_db()
    assert rows.shop.webhook_secret in client.get("/admin/finance/terminal/").content.decode()


def test_webhook_urls_must_be_a_list_of_http_urls(client, rows):
    from finance.models import Terminal

    login(client)
    base = _terminal_form(rows.shop)
    for bad in ['"http://127.0.0.1/x"', '["ftp://x"]', '{"a": 1}', "[1, 2]"]:
        response = client.post(
            f"/admin/finance/terminal/{rows.shop.pk}/change/", {**base, "webhook_urls": bad}
        )
        assert response.status_code == 200, bad  # the form again, with the error
        assert Terminal.objects.get(pk=rows.shop.pk).webhook_urls == []
    spaced = {**base, "webhook_urls": '["https://shop.example/a b"]'}
    page = f"/admin/finance/terminal/{rows.shop.pk}/change/"
    english = client.post(page, spaced).content.decode()
    assert "an address beginning with http:// or https:// is needed" in english
    # Said in the operators' language, as the rest of the page.
    client.cookies["django_language"] = "ru"
    russian = client.post(page, spaced).content.decode()
    assert "нужен адрес, начинающийся с http:// или https://" in russian
    assert "Must be a valid" not in russian
    client.cookies["django_language"] = "en"
    response = client.post(
        f"/admin/finance/terminal/{rows.shop.pk}/change/",
        {**base, "webhook_urls": '["https://shop.example/hooks"]'},
    )
    assert response.status_code == 302
    assert Terminal.objects.get(pk=rows.shop.pk).webhook_urls == ["https://shop.example/hooks"]


def test_one_button_cannot_go_to_two_methods(client, rows):
    from finance.models import TerminalMethod

    login(client)
    links = list(TerminalMethod.objects.filter(terminal=rows.shop).order_by("pk"))
    link_rows = [
        {
            "id": str(link.pk),
            "terminal": str(rows.shop.pk),
            "method": str(link.method_id),
            "enabled": "on",
            "button_name": "SberPay",
        }
        for link in links[:2]
    ]
    data = _terminal_form(rows.shop, link_rows, initial=len(links))
    response = client.post(f"/admin/finance/terminal/{rows.shop.pk}/change/", data)
    assert response.status_code == 200
    assert "given to two methods" in response.content.decode()


@pytest.mark.parametrize(
    ("ranges", "error"),
    [
        (
            [{"side": "Buy", "min_amount": "100", "max_amount": "300000", "fee": "150"}],
            "at most 100",
        ),
        (
            [
                {"side": "Buy", "min_amount": "100", "max_amount": "1000", "fee": "5"},
                {"side": "Buy", "min_amount": "900", "max_amount": "2000", "fee": "4"},
            ],
            "overlap",
        ),
    ],
)
def test_fee_ranges_are_sane(client, rows, ranges, error):
    login(client)
    method = rows.methods["Other"]
    range_rows = [{"currency": "RUB", "fixed_fee": "0", **r} for r in ranges]
    response = client.post(
        f"/admin/finance/paymentmethod/{method.pk}/change/", _method_form(method, range_rows)
    )
    assert response.status_code == 200
    assert error in response.content.decode()


@pytest.mark.parametrize("template", ["https://b.example/?o={order_id.hex}", "https://b/{acount}"])
def test_a_deeplink_template_that_cannot_render_is_refused(client, rows, template):
    login(client)
    method = rows.methods["Other"]
    response = client.post(
        f"/admin/finance/paymentmethod/{method.pk}/change/",
        _method_form(method, [], deeplink_template=template),
    )
    assert response.status_code == 200
    assert "Unknown field" in response.content.decode()


def test_webhook_urls_are_typed_one_per_line(client, rows):
    from finance.models import Terminal

    login(client)
    base = _terminal_form(rows.shop)
    lines = "https://shop.example/a\r\n\r\n  https://shop.example/b  \r\n"
    response = client.post(
        f"/admin/finance/terminal/{rows.shop.pk}/change/", {**base, "webhook_urls": lines}
    )
    assert response.status_code == 302
    terminal = Terminal.objects.get(pk=rows.shop.pk)
    assert terminal.webhook_urls == ["https://shop.example/a", "https://shop.example/b"]
    page = client.get(f"/admin/finance/terminal/{rows.shop.pk}/change/").content.decode()
    assert "https://shop.example/a\nhttps://shop.example/b</textarea>" in page
