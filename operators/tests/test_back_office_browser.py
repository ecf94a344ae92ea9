"""The back office in a real browser at 1280x800, in Russian, on Moscow time: the index
and its header, the order and dispute lists whole on the screen, an order's and a
dispute's pages, the dispute's second confirmation, the language switch. With
OPERATOR_SCREENSHOTS_DIR set, the pages are saved as the screenshots in
docs/operators.md (`make operator-screenshots`)."""

import re

import pytest
from playwright.sync_api import expect

from conftest import ApiClient, buy_body
from disputes.models import Dispute
from orders.models import Order

# The form's browser marks (browser, live database, skipped without Chromium).
from .test_browser import PASSWORD, SCREEN, pytestmark, shot, sign_in, some_orders  # noqa: F401

# Per list: whether its table fits the screen, which cells are cut or scrolled, and
# which of the cells that must stay on one line (dates, ids, amounts) wrap.
LAYOUT = """() => {
  const results = document.querySelector('#changelist .results');
  const table = document.querySelector('#result_list');
  const cut = [], wrapped = [];
  for (const cell of table.querySelectorAll('td, th')) {
    if (cell.scrollWidth > cell.clientWidth + 1) cut.push(cell.className + ': ' + cell.innerText);
  }
  const oneLine = 'td.field-created_at, td.field-order_id, td.field-order_short_id, '
    + 'td.field-amount, td.field-claimed, td.field-order_amount, th.field-order_id';
  for (const cell of table.querySelectorAll(oneLine)) {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
      .map(r => Math.round(r.bottom)));
    if (lines.size > 1) wrapped.push(cell.className + ': ' + cell.innerText);
  }
  return {
    tableRight: Math.ceil(table.getBoundingClientRect().right),
    scrolls: results.scrollWidth > results.clientWidth + 1,
    pageWidth: document.documentElement.scrollWidth,
    cut, wrapped,
  };
}"""


@pytest.fixture
def page(browser):
    # An English-speaking browser: the back office is Russian all the same.
    context = browser.new_context(viewport=SCREEN, locale="en-US", accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


def a_dispute(demo) -> Dispute:
    shop = ApiClient("demo-shop-key")
    order = shop.post(
        "/api/v1/order/", buy_body(demo, amount="5000.00", client_order_id="shop-order-2026-11")
    ).json()
    response = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": "4000"}
    )
    assert response.status_code == 201, response.content
    return Dispute.objects.get(pk=response.json()["dispute_id"])


def assert_whole(page, name):
    layout = page.evaluate(LAYOUT)
    assert layout["pageWidth"] <= SCREEN["width"], (name, layout)
    assert layout["tableRight"] <= SCREEN["width"] and not layout["scrolls"], (name, layout)
    assert layout["cut"] == [] and layout["wrapped"] == [], (name, layout)


def test_the_index_names_the_service_and_view_site_opens_the_dashboard(page, live):
    _, url = live
    sign_in(page, url)
    page.wait_for_url(f"{url}/admin/")
    assert page.locator("html").get_attribute("lang") == "ru"
    assert page.inner_text("#site-name") == "Сервис платёжных заказов: бэк-офис"
    assert "Django" not in page.title() and "Django" not in page.inner_text("body")
    shot(page, "0-index")
    page.click("#user-tools a:text-is('Открыть сайт')")
    page.wait_for_url(f"{url}/admin/dashboard/")
    assert page.inner_text("#content h1") == "Сводка"

    page.click("[data-testid=language-switch] button")
    # The switch posts and comes back to the same address: wait for the page's language.
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert page.url == f"{url}/admin/dashboard/"
    assert "Orders created" in page.inner_text("body")
    page.click("[data-testid=language-switch] button")
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    assert page.url == f"{url}/admin/dashboard/"
    assert "Создано ордеров" in page.inner_text("body")


def test_the_order_list_fits_the_screen_and_finds_the_short_id(page, live):
    demo, url = live
    some_orders(demo)
    a_dispute(demo)
    sign_in(page, url)
    page.goto(f"{url}/admin/orders/order/")
    assert page.inner_text("#content h1") == "Выберите заказ для изменения"
    assert_whole(page, "orders")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 6
    newest = Order.objects.order_by("-created_at").first()
    assert str(newest.pk)[:8] in rows.first.inner_text()  # newest first
    assert "MSK" in rows.first.inner_text()
    shot(page, "2-orders")

    page.fill("#searchbar", str(newest.pk)[:8])
    page.press("#searchbar", "Enter")
    page.wait_for_url(re.compile(r".*q=.*"))
    assert page.locator("#result_list tbody tr").count() == 1
    page.goto(f"{url}/admin/orders/order/")
    page.click("#changelist-filter a:text-is('песочница')")
    page.wait_for_url(re.compile(r".*mode=sandbox.*"))
    assert page.locator("#result_list tbody tr").count() == 0
    for title in ["режим", "в ожидании дольше срока", "плательщик нажал «Я оплатил»", "есть чеки"]:
        assert page.locator("#changelist-filter", has_text=title).count() == 1, title


def test_an_order_and_a_dispute_read_in_moscow_time(page, live):
    demo, url = live
    dispute = a_dispute(demo)
    sign_in(page, url)
    page.goto(f"{url}/admin/orders/order/{dispute.order_id}/change/")
    body = page.inner_text("body")
    assert "MSK" in body and "+00:00" not in body
    assert "Что дальше" in body and "История" in body
    shot(page, "5-order")

    page.goto(f"{url}/admin/disputes/dispute/")
    assert_whole(page, "disputes")
    page.goto(f"{url}/admin/disputes/dispute/{dispute.pk}/change/")
    body = page.inner_text("body")
    assert "MSK" in body and "+00:00" not in body and "Заявленная сумма" in body
    shot(page, "6-dispute")

    # 4000 claimed on an order of 5000: accepting needs the second confirmation, and
    # its absence is said on the page, not only in the browser's tooltip.
    page.click("a.button:text-is('Принять…')")
    expect(page.locator("[data-testid=confirm-money-note]")).to_be_visible()
    page.fill("#id_comment", "Выписка банка совпадает")
    page.click("input[type=submit][value='Принять']")
    expect(page.locator("[data-testid=resolve-errors]")).to_be_visible()
    expect(page.locator("text=Отметьте этот флажок")).to_be_visible()
    dispute.refresh_from_db()
    assert not dispute.processed
    page.check("#id_confirm_money")
    page.click("input[type=submit][value='Принять']")
    page.wait_for_url(f"{url}/admin/disputes/dispute/")
    assert "Принят 1 спор." in page.inner_text(".messagelist")


def test_the_trader_list_fits_and_shows_todays_figures(page, live):
    demo, url = live
    some_orders(demo)
    sign_in(page, url)
    page.goto(f"{url}/admin/orders/trader/")
    assert_whole(page, "traders")
    header = page.inner_text("#result_list thead")
    assert "оборот сегодня" in header.lower() and "конверсия сегодня" in header.lower()
