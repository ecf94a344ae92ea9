"""The payer's pages through the Django test client (the browser tests drive the rest)."""

import re
from datetime import timedelta

import pytest

from forms_ui.models import FormSession
from orders.tests.world import trader_for


@pytest.fixture
def shop(world):
    return world.api


def create(client, urls=None, **order_data):
    data = {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000"}
    data.update(order_data)
    return FormSession.objects.get(
        pk=client.post("/api/v1/form/create", {"order_data": data, **(urls or {})}).json()[
            "form_data"
        ]["session_id"]
    )


def hooks_in(html: str) -> list[str]:
    return re.findall(r'data-testid="([a-z-]+)"', html)


def test_method_page_lists_methods_with_hooks(shop, client, world):
    session = create(shop)
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    # every active method with a Buy range that some trader serves (not Ozon Bank SBP)
    assert html.count('data-testid="method-option"') == 7  # MTS Bank SBP included
    assert f'data-method-id="{world.method_id("Sberbank SBP")}"' in html
    assert f'data-method-id="{world.method_id("Ozon Bank SBP")}"' not in html
    assert "Сбербанк (СБП)" in html and "Банковская карта" in html
    assert "Legacy card" not in html
    assert 'lang="ru"' in html


def test_only_methods_that_take_the_amount_are_offered(shop, client, world):
    session = create(shop, amount="300")  # Bank card starts at 500
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert html.count('data-testid="method-option"') == 6
    assert f'data-method-id="{world.method_id("Bank card")}"' not in html
    response = client.post(
        "/form/choose", {"session_id": session.pk, "method_id": world.method_id("Bank card")}
    )
    session.refresh_from_db()
    assert response.status_code == 302 and session.state == "method_selection"


def test_choosing_a_method_finds_requisites(shop, client, world):
    session = create(shop)
    response = client.post(
        "/form/choose", {"session_id": session.pk, "method_id": world.method_id("VTB SBP")}
    )
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    session.refresh_from_db()
    assert session.state == "requisites_found" and session.selection is True
    assert f'data-testid="requisite-account">{session.order.holder_account}<' in html
    assert 'data-testid="requisite-amount">1\u00a0000,00\u00a0₽<' in html
    assert 'data-testid="paid-button"' in html


def test_english_on_request(shop, client):
    session = create(shop, button_name="SberPay")
    assert (
        "I have paid"
        in client.get("/form/", {"session_id": session.pk, "lang": "en"}).content.decode()
    )
    assert (
        "I have paid"
        in client.get(
            "/form/", {"session_id": session.pk}, headers={"Accept-Language": "en-US,en;q=0.9"}
        ).content.decode()
    )
    # ?lang= is remembered in the language cookie; without it, Russian
    assert "I have paid" in client.get("/form/", {"session_id": session.pk}).content.decode()
    client.cookies.clear()
    assert "Я оплатил" in client.get("/form/", {"session_id": session.pk}).content.decode()


def test_method_names_and_every_text_follow_the_language(shop, client, world):
    session = create(shop)
    english = client.get("/form/", {"session_id": session.pk, "lang": "en"}).content.decode()
    assert "Bank card" in english and "Choose a payment method" in english
    assert not re.search("[а-яА-ЯёЁ]", english.replace("Русский", ""))
    russian = client.get("/form/", {"session_id": session.pk, "lang": "ru"}).content.decode()
    assert "Банковская карта" in russian and "Сбербанк (СБП)" in russian
    assert "Bank card" not in russian


def test_each_hook_appears_at_most_once(shop, client):
    urls = {"return_url": "https://shop.example/back", "support_url": "https://shop.example/help"}
    session = create(shop, urls, button_name="SberPay")
    ids = hooks_in(client.get("/form/", {"session_id": session.pk}).content.decode())
    assert all(ids.count(i) == 1 for i in set(ids) - {"method-option"})
    assert {"return-link", "support-link", "requisite-account", "paid-button"} <= set(ids)


def test_absent_urls_have_no_links(shop, client):
    session = create(shop, button_name="SberPay")
    ids = hooks_in(client.get("/form/", {"session_id": session.pk}).content.decode())
    assert "return-link" not in ids and "support-link" not in ids


def test_return_link_stays_while_confirmation_is_awaited_and_goes_when_closed(shop, client):
    urls = {"return_url": "https://shop.example/back", "redirect_url": "https://shop.example/ok"}
    session = create(shop, urls, button_name="SberPay")
    client.post("/form/paid", {"session_id": session.pk})
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="return-link"' in html and 'href="https://shop.example/back"' in html
    trader_for({"id": str(session.order_id)}).post(
        f"/api/v1/trader/orders/{session.order_id}/confirm"
    )
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="success-screen"' in html
    assert (
        'data-testid="countdown"' in html and 'data-redirect-url="https://shop.example/ok"' in html
    )
    assert 'data-testid="return-link"' not in html


def test_success_without_redirect_url_counts_down_without_redirecting(shop, client):
    session = create(shop, button_name="SberPay")
    trader_for({"id": str(session.order_id)}).post(
        f"/api/v1/trader/orders/{session.order_id}/confirm"
    )
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="success-screen"' in html and 'data-testid="countdown"' in html
    assert "data-redirect-url" not in html and 'http-equiv="refresh"' not in html


def test_a_reload_of_the_success_screen_carries_the_countdown_on(shop, client):
    urls = {"redirect_url": "https://shop.example/ok"}
    session = create(shop, urls, button_name="SberPay")
    trader_for({"id": str(session.order_id)}).post(
        f"/api/v1/trader/orders/{session.order_id}/confirm"
    )
    first = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="countdown" data-redirect-url="https://shop.example/ok">5<' in first
    session.refresh_from_db()
    shown_at = session.success_shown_at
    FormSession.objects.filter(pk=session.pk).update(
        success_shown_at=shown_at - timedelta(seconds=3.5)
    )
    again = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-redirect-url="https://shop.example/ok">2<' in again
    assert 'content="2;url=https://shop.example/ok"' in again
    FormSession.objects.filter(pk=session.pk).update(
        success_shown_at=shown_at - timedelta(seconds=60)
    )
    late = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'content="0;url=https://shop.example/ok"' in late


def bank_names(html: str) -> list[str]:
    return re.findall(r'<div class="bank">\s*<strong>([^<]+)</strong>', html)


def test_preselected_button_shows_only_that_banks_hint_and_deeplink(shop, client):
    session = create(shop, button_name="TPay")
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert bank_names(html) == ["Т-Банк (СБП)"]
    assert "https://www.tbank.ru/mybank/payments/persons/phone/?requisiteNumber=" in html
    assert "sberbank.com" not in html
    assert "Откройте приложение Т-Банка" in html


def test_aggregate_method_lists_every_banks_app(shop, client, world):
    session = create(shop)
    client.post("/form/choose", {"session_id": session.pk, "method_id": world.method_id("SBP")})
    html = client.get("/form/", {"session_id": session.pk, "lang": "en"}).content.decode()
    assert bank_names(html) == ["Alfa-Bank SBP", "Sberbank SBP", "T-Bank SBP", "VTB SBP"]
    assert "Open VTB Online" in html


def test_customer_bank_narrows_the_banks_to_that_one(shop, client, world):
    session = create(shop, customer_bank="ALFABANK")
    client.post("/form/choose", {"session_id": session.pk, "method_id": world.method_id("SBP")})
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert bank_names(html) == ["Альфа-Банк (СБП)"]  # the Russian page, Russian names


def test_deeplink_carries_the_requisite_and_amount(shop, client):
    session = create(shop, button_name="SberPay", amount="1234.5")
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    account = session.order.holder_account.replace("+", "%2B")
    assert f"requisiteNumber={account}&amp;amount=1234.50" in html


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("en-US,en;q=0.9", "I have paid"),
        ("ru;q=0.3, en;q=0.8", "I have paid"),
        ("en;q=0.2, ru", "Я оплатил"),
        ("de-DE, fr;q=0.9", "Я оплатил"),
        ("", "Я оплатил"),
    ],
)
def test_accept_language_picks_the_preferred_language(shop, client, header, expected):
    session = create(shop, button_name="SberPay")
    html = client.get(
        "/form/", {"session_id": session.pk}, headers={"Accept-Language": header}
    ).content.decode()
    assert expected in html


def test_lang_parameter_beats_accept_language(shop, client):
    session = create(shop, button_name="SberPay")
    html = client.get(
        "/form/", {"session_id": session.pk, "lang": "ru"}, headers={"Accept-Language": "en"}
    ).content.decode()
    assert "Я оплатил" in html and 'lang="ru"' in html


def test_cancelled_order_shows_failure(shop, client):
    session = create(shop, button_name="SberPay")
    shop.post(f"/api/v1/order/{session.order_id}/cancel")
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="failure-screen"' in html and 'data-reason="cancelled"' in html


@pytest.mark.parametrize("session_id", ["", "nope", "x" * 100, "<script>"])
def test_unknown_session_is_a_404_page(client, db, session_id):
    response = client.get("/form/", {"session_id": session_id})
    assert response.status_code == 404
    assert b"<html" in response.content


def test_client_order_id_is_escaped(shop, client):
    session = create(shop, client_order_id="<script>alert(1)</script>")
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_pages_carry_a_strict_csp(shop, client):
    session = create(shop)
    response = client.get("/form/", {"session_id": session.pk})
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert b"<script>" not in response.content and b"style=" not in response.content


def test_posts_are_csrf_protected(shop, world):
    from django.test import Client

    session = create(shop)
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        "/form/choose", {"session_id": session.pk, "method_id": world.method_id("VTB SBP")}
    )
    assert response.status_code == 403
    session.refresh_from_db()
    assert session.state == "method_selection"


@pytest.mark.parametrize(("lang", "title"), [("ru", "Страница устарела"), ("en", "out of date")])
def test_a_post_without_its_csrf_token_gets_the_forms_own_page(shop, world, lang, title):
    from django.test import Client

    session = create(shop)
    response = Client(enforce_csrf_checks=True).post(
        f"/form/paid?lang={lang}", {"session_id": session.pk}
    )
    assert response.status_code == 403
    html = response.content.decode()
    assert title in html
    assert f'href="/form/?session_id={session.pk}' in html


def test_status_endpoint(shop, client):
    session = create(shop, button_name="SberPay")
    assert (
        client.get("/form/status", {"session_id": session.pk}).json()["state"] == "requisites_found"
    )
    assert client.get("/form/status", {"session_id": "nope"}).status_code == 404


def test_a_nul_in_the_forms_inputs_gets_the_forms_own_answer(shop, client):
    session = create(shop)
    sid = session.pk
    page = client.get("/form/", {"session_id": sid + "\x00"})
    assert page.status_code == 404 and b"<html" in page.content.lower()
    status = client.get("/form/status", {"session_id": "\x00" + sid})
    assert status.status_code == 404 and status.json()["code"] == "not_found"
    paid = client.post("/form/paid", {"session_id": sid + "\x00"})
    assert paid.status_code == 404
    chosen = client.post("/form/choose", {"session_id": sid, "method_id": "\x00"})
    assert chosen.status_code == 302
    session.refresh_from_db()
    assert session.state == "method_selection"


def test_a_failed_search_offers_another_method_and_the_way_back(shop, client, world, settings):
    settings.FORM_SEARCH_WINDOW_SECONDS = 0
    urls = {"return_url": "https://shop.example/back"}
    session = create(shop, urls)
    # A method no trader serves, picked by a stale page: the search ends at once.
    client.post(
        "/form/choose", {"session_id": session.pk, "method_id": world.method_id("Ozon Bank SBP")}
    )
    html = client.get("/form/", {"session_id": session.pk, "lang": "en"}).content.decode()
    assert 'data-testid="failure-screen"' in html and "Choose another method" in html
    assert 'href="https://shop.example/back" rel="noopener noreferrer" data-back-to-shop' in html
    client.post("/form/again", {"session_id": session.pk})
    session.refresh_from_db()
    assert session.state == "method_selection" and session.method_id is None
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="method-option"' in html


def test_a_preselected_button_has_no_other_method_to_offer(shop, client, world, settings):
    settings.FORM_SEARCH_WINDOW_SECONDS = 0
    session = create(shop, button_name="SberPay")
    FormSession.objects.filter(pk=session.pk).update(state="requisites_not_found")
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert 'data-testid="failure-screen"' in html and "data-choose-again" not in html
    client.post("/form/again", {"session_id": session.pk})
    session.refresh_from_db()
    assert session.state == "requisites_not_found"


def test_the_qr_code_encodes_the_form_url_with_its_quiet_zone(shop, client):
    import segno

    from forms_ui.services import form_url

    session = create(shop, button_name="SberPay")
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert html.count('data-testid="continue-on-phone-qr"') == 1
    drawn = re.search(r'<svg data-testid="continue-on-phone-qr".*?</svg>', html, re.S).group(0)
    expected = segno.make(form_url(session), error="m", micro=False)
    path = re.search(r'class="qrline" stroke="#000" d="([^"]+)"', drawn).group(1)
    assert path in expected.svg_inline(scale=5, border=4, dark="#000", light="#fff")
    size = (expected.symbol_size(border=4)[0]) * 5
    assert f'width="{size}"' in drawn  # the 4-module quiet zone is part of the element
    # still there once the payer has pressed "I have paid": the requisites stay shown
    client.post("/form/paid", {"session_id": session.pk})
    session.refresh_from_db()
    assert session.state == "payment_confirmation"
    html = client.get("/form/", {"session_id": session.pk}).content.decode()
    assert html.count('data-testid="continue-on-phone-qr"') == 1
    assert 'data-testid="requisite-account"' in html


def test_amounts_are_written_the_russian_way(shop, client):
    session = create(shop, amount="3100")
    html = client.get("/form/", {"session_id": session.pk, "lang": "ru"}).content.decode()
    assert "3\u00a0100,00\u00a0₽" in html
    html = client.get("/form/", {"session_id": session.pk, "lang": "en"}).content.decode()
    assert "3,100.00\u00a0₽" in html
