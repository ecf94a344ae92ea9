"""Every state of the payer's page in Chromium at a phone's and a desktop's width:
axe-core finds no serious or critical violation, the page works from the keyboard,
receipts go up through the real form and the QR shows only on wide screens."""

import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from conftest import ApiClient, trader_for
from forms_ui.models import FormSession
from forms_ui.tests.test_browser import create_form, pytestmark, shot  # noqa: F401
from orders.models import Order

AXE = Path(__file__).parent / "assets" / "axe.min.js"
WIDTHS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


@pytest.fixture(params=sorted(WIDTHS))
def wide_page(request, browser):
    # bypass_csp only lets the test inject axe; the application's CSP is checked
    # by test_browser.py.
    context = browser.new_context(
        viewport=WIDTHS[request.param],
        is_mobile=request.param == "phone",
        has_touch=request.param == "phone",
        locale="ru-RU",
        bypass_csp=True,
    )
    page = context.new_page()
    page.set_default_timeout(15000)
    page.width_name = request.param
    yield page
    context.close()


def axe_problems(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']})""")
    assert result["testEngine"]["name"] == "axe-core" and result["passes"]  # it really ran
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def check(page, name):
    problems = axe_problems(page)
    shot(page, f"{name}-{page.width_name}")
    assert not problems, f"{name} at {page.width_name}: {problems}"


def order_of(form) -> str:
    return str(FormSession.objects.get(pk=form["session_id"]).order_id)


def png_bytes() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (30, 90, 200)).save(buf, "PNG")
    return buf.getvalue()


def test_every_state_has_no_serious_violation(live, wide_page, tmp_path):
    demo, base = live
    page = wide_page
    urls = {"return_url": f"{base}/healthz?back=1", "support_url": f"{base}/healthz?help=1"}

    form = create_form(**urls)
    for lang in ("en", "ru"):  # Russian last: the cookie keeps it for what follows
        page.goto(form["form_url"] + f"&lang={lang}")
        page.locator('[data-testid="method-option"]').first.wait_for()
        check(page, f"method-choice-{lang}")

    searching = create_form(client_order_id="search-1", **urls)
    FormSession.objects.filter(pk=searching["session_id"]).update(
        state="requisites_search",
        method_id=demo.method_id("Ozon Bank SBP"),
        requisites_request_starts_at=timezone.now(),
        requisites_request_expires_at=timezone.now() + timedelta(minutes=5),
    )
    page.goto(searching["form_url"])
    page.wait_for_selector("text=Подбираем реквизиты")
    check(page, "searching")

    form = create_form(client_order_id="found-1", button_name="SberPay", **urls)
    page.goto(form["form_url"])
    page.get_by_test_id("requisite-account").wait_for()
    qr = page.get_by_test_id("continue-on-phone-qr")
    assert qr.count() == 1
    assert qr.is_visible() == (page.width_name == "desktop")
    check(page, "requisites")

    bad = tmp_path / "photo.png"
    bad.write_bytes(b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 200)
    page.get_by_test_id("receipt-input").set_input_files(str(bad))
    page.get_by_test_id("receipt-submit").click()
    error = page.get_by_test_id("receipt-error")
    error.wait_for()
    assert "PDF" in error.inner_text()
    check(page, "receipt-refused")

    good = tmp_path / "receipt.png"
    good.write_bytes(png_bytes())
    page.get_by_test_id("receipt-input").set_input_files(str(good))
    page.get_by_test_id("receipt-submit").click()
    page.get_by_test_id("receipt-uploaded").wait_for()
    assert "receipt.png" in page.get_by_test_id("receipt-uploaded").inner_text()
    check(page, "receipt-attached")

    page.get_by_test_id("paid-button").click()
    page.wait_for_selector("text=Проверяем поступление платежа")
    check(page, "checking")

    order_id = order_of(form)
    trader_for({"id": order_id}).post(f"/api/v1/trader/orders/{order_id}/confirm")
    page.get_by_test_id("success-screen").wait_for()
    check(page, "success")

    cancelled = create_form(client_order_id="cancel-1", button_name="TPay", **urls)
    order_id = order_of(cancelled)
    trader_for({"id": order_id}).post(f"/api/v1/trader/orders/{order_id}/cancel")
    page.goto(cancelled["form_url"])
    page.get_by_test_id("failure-screen").wait_for()
    check(page, "cancelled")

    for state in ("requisites_not_found", "expired"):
        session = create_form(client_order_id=f"{state}-1", **urls)
        FormSession.objects.filter(pk=session["session_id"]).update(state=state)
        page.goto(session["form_url"])
        page.get_by_test_id("failure-screen").wait_for()
        check(page, state)

    page.goto(f"{base}/form/?session_id=nothing-here")
    check(page, "missing")


def test_a_receipt_attached_on_the_page_reaches_the_trader_byte_for_byte(live, wide_page, tmp_path):
    page = wide_page
    form = create_form(button_name="AlfaPay")
    page.goto(form["form_url"] + "&lang=en")
    page.get_by_test_id("requisite-account").wait_for()
    data = png_bytes()
    file = tmp_path / "transfer.png"
    file.write_bytes(data)
    page.get_by_test_id("receipt-input").set_input_files(str(file))
    page.get_by_test_id("receipt-submit").click()
    page.get_by_test_id("receipt-uploaded").wait_for()

    order_id = order_of(form)
    assert Order.objects.get(pk=order_id).receipts_count == 1
    trader = trader_for({"id": order_id})
    receipts = trader.get(f"/api/v1/trader/orders/{order_id}/receipts").json()["receipts"]
    got = trader.get(f"/api/v1/trader/orders/{order_id}/receipts/{receipts[0]['id']}")
    assert b"".join(got.streaming_content) == data
    others = [ApiClient(f"demo-trader-{i}-key") for i in (1, 2, 3)]
    statuses = sorted(
        t.get(f"/api/v1/trader/orders/{order_id}/receipts/{receipts[0]['id']}").status_code
        for t in others
    )
    assert statuses == [200, 404, 404]


def test_keyboard_only_from_method_choice_to_i_have_paid(live, browser):
    demo, base = live
    context = browser.new_context(viewport=WIDTHS["desktop"], locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15000)
    try:
        form = create_form(client_order_id="keys-1")
        page.goto(form["form_url"] + "&lang=en")
        page.locator('[data-testid="method-option"]').first.wait_for()
        for _ in range(20):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.dataset.testid") == "method-option":
                break
        focused = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert focused != "none"  # focus is visible
        page.keyboard.press("Enter")
        page.get_by_test_id("requisite-account").wait_for()
        for _ in range(30):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.dataset.testid") == "paid-button":
                break
        else:
            pytest.fail("the paid button is not reachable with Tab")
        page.keyboard.press("Enter")
        page.wait_for_selector("text=Checking your payment")
    finally:
        context.close()


def test_at_1280_px_the_qr_code_decodes_to_the_form_url(live, browser):
    import zxingcpp
    from PIL import Image

    context = browser.new_context(viewport=WIDTHS["desktop"])
    page = context.new_page()
    try:
        form = create_form(client_order_id="qr-1", button_name="SberPay")
        page.goto(form["form_url"])
        qr = page.get_by_test_id("continue-on-phone-qr")
        qr.wait_for()
        image = Image.open(io.BytesIO(qr.screenshot()))  # the element alone: its quiet zone
        decoded = [r.text for r in zxingcpp.read_barcodes(image)]
        assert decoded == [form["form_url"]]
    finally:
        context.close()
