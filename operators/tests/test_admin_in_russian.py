"""Every admin page an operator can open, walked in Russian: the index, each registered
list, each add form, the change form and history of a row of each model, each action's
confirmation page and the dashboard. A Latin word on a page fails the test unless it
is data: a value stored in the database (names, statuses, methods, ids), an identifier
from the API, or one of the few allowed below.

The walk reads the admin site's registry, so a model registered later is walked too."""

import re
from html.parser import HTMLParser

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import models
from django.test import RequestFactory
from django.urls import NoReverseMatch, reverse
from django.utils import translation
from django.utils.translation import ngettext

from conftest import ApiClient, buy_body, sell_body, trader_for
from disputes.models import Dispute

# Words that are not data in the database but are not English UI either: units,
# abbreviations and the API's own words that operators see in its spelling.
ALLOWED = {
    "api", "csv", "id", "ids", "json", "http", "https", "url", "sbp", "nspk", "rub", "msk",
    "totp", "ip", "mb", "png", "jpeg", "pdf", "buy", "sell", "pending", "completed",
    "cancelled", "expired", "base64", "h2h", "uuid", "english", "ok",
    # Names Django's own Russian keeps in Latin letters.
    "control", "command", "mac", "ldap", "single", "sign-on", "sing-on",
}  # fmt: skip
# A token holding a digit, an underscore, a dot, a slash, a brace or @ is an id, a path,
# an identifier or a placeholder: data, not a word of the interface.
NOT_A_WORD = re.compile(r"[\d_./{}@:=<>#?&%*\\]")
HIDDEN_TAGS = {"script", "style", "pre", "code", "textarea", "noscript", "template"}
SHOWN_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt"}


class VisibleText(HTMLParser):
    """The text a person reads on the page, attributes they see included."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in HIDDEN_TAGS:
            self.hidden += 1
        attrs = dict(attrs)
        for name in SHOWN_ATTRIBUTES & attrs.keys():
            self.parts.append(attrs[name] or "")
        if tag == "input" and attrs.get("type") in ("submit", "button"):
            self.parts.append(attrs.get("value") or "")

    def handle_endtag(self, tag):
        if tag in HIDDEN_TAGS and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def english_words(html: str, data_words: set[str]) -> set[str]:
    parser = VisibleText()
    parser.feed(html)
    found = set()
    for token in " ".join(parser.parts).split():
        if NOT_A_WORD.search(token):
            continue
        if token.strip(".,;:()«»“”\"'").lower() in ALLOWED:
            continue
        for word in re.findall(r"[A-Za-z]{2,}", token):
            if word.lower() not in ALLOWED and word.lower() not in data_words:
                found.add(word)
    return found


def words_in_the_database() -> set[str]:
    """Every word of every text value and of every choice of every registered model
    (and of the permissions' stored names): what is data."""
    words: set[str] = set()
    for model in apps.get_models():
        for f in model._meta.concrete_fields:
            for _value, label in f.flatchoices or ():
                words.update(w.lower() for w in re.findall(r"[A-Za-z]{2,}", str(label)))
    for model in [*admin.site._registry, Permission]:
        text_fields = [
            f.name
            for f in model._meta.concrete_fields
            if isinstance(f, (models.CharField, models.TextField, models.GenericIPAddressField))
        ]
        if not text_fields:
            continue
        for row in model._default_manager.values_list(*text_fields)[:500]:
            for value in row:
                words.update(w.lower() for w in re.findall(r"[A-Za-z]{2,}", str(value or "")))
    return words


@pytest.fixture
def superuser(client, db):
    user = get_user_model().objects.create_superuser("chief", "chief@example.com", "pw-chief-1")
    client.force_login(user)
    return user


@pytest.fixture
def busy_day(demo):
    """Orders in every state, a dispute with its order's events and deliveries, on the
    whole demo data set: the walk opens a row of every registered model, and the demo set
    is what holds one of each (devices, settlements, keys, the blacklist...)."""
    shop = ApiClient("demo-shop-key")
    done = shop.post("/api/v1/order/", buy_body(demo, amount="1000.00", user_id="u1")).json()
    trader_for(done).post(f"/api/v1/trader/orders/{done['id']}/confirm")
    shop.post("/api/v1/order/", buy_body(demo, amount="1500.00", client_order_id="o-2"))
    sold = shop.post("/api/v1/order/", sell_body(demo, amount="3000.00")).json()
    trader_for(sold).post(f"/api/v1/trader/orders/{sold['id']}/cancel")
    disputed = shop.post(
        "/api/v1/order/", buy_body(demo, amount="2500.00", client_order_id="d")
    ).json()
    response = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": disputed["id"], "amount": "3100"}
    )
    assert response.status_code == 201, response.content
    return Dispute.objects.get(pk=response.json()["dispute_id"])


def admin_pages(client, user):
    """(name, response) for every page of the walk, in Russian (no language chosen)."""
    request = RequestFactory().get("/admin/")
    request.user = user
    yield "index", client.get(reverse("admin:index"))
    yield "dashboard", client.get(reverse("operators-dashboard"))
    for model, model_admin in admin.site._registry.items():
        info = (model._meta.app_label, model._meta.model_name)
        changelist = reverse("admin:{}_{}_changelist".format(*info))
        yield f"{changelist}", client.get(changelist)
        if model_admin.has_add_permission(request):
            add = reverse("admin:{}_{}_add".format(*info))
            yield add, client.get(add)
        row = model._default_manager.order_by("pk").first()
        if row is None:
            continue
        for view in ("change", "history"):
            try:
                url = reverse(f"admin:{info[0]}_{info[1]}_{view}", args=[quote(row.pk)])
            except NoReverseMatch:
                continue
            yield url, client.get(url)
        for action in model_admin.get_actions(request):
            if action == "delete_selected":
                continue  # Django's own page, in Django's catalog
            response = client.post(
                changelist, {"action": action, "_selected_action": [str(row.pk)]}, follow=True
            )
            yield f"{changelist} action {action}", response


def test_every_admin_page_is_russian(client, superuser, busy_day):
    pages = {}
    for name, response in admin_pages(client, superuser):
        assert response.status_code in (200, 400), (name, response.status_code)
        pages[name] = response.content.decode()
        assert 'lang="ru"' in pages[name], name
        # Times in the operators' zone, named: never UTC's offset (ISO or Python's str).
        assert "+00:00" not in pages[name], name
    # Data read after the walk: actions on the way may have written some (key names).
    data_words = words_in_the_database()
    english = {}
    for name, html in pages.items():
        words = english_words(html, data_words)
        if words:
            english[name] = sorted(words)
    assert len(pages) > 40
    assert english == {}, "\n".join(f"{page}: {words}" for page, words in english.items())


def test_english_is_one_switch_away(client, superuser):
    page = client.get(reverse("admin:index"))
    assert "Сервис платёжных заказов" in page.content.decode()
    client.post(reverse("set_language"), {"language": "en", "next": "/admin/"})
    page = client.get(reverse("admin:index")).content.decode()
    assert 'lang="en"' in page and "Payment orders service: back office" in page
    assert "Django" not in page


def test_an_english_word_on_a_page_is_found():
    html = '<p>Заказы <span title="Pick one">Completed</span> Выберите order</p><pre>Raw</pre>'
    assert english_words(html, set()) == {"Pick", "one", "order"}


@pytest.mark.parametrize(
    "count, text",
    [
        (1, "Принят 1 спор."),
        (3, "Принято 3 спора."),
        (5, "Принято 5 споров."),
        (21, "Принят 21 спор."),
    ],
)
def test_messages_count_in_russian_plural_forms(count, text):
    with translation.override("ru"):
        said = ngettext("Accepted %d dispute.", "Accepted %d disputes.", count) % count
    assert said == text


def test_view_site_opens_the_dashboard(client, superuser):
    html = client.get(reverse("admin:index")).content.decode()
    assert '<a href="/admin/dashboard/">Открыть сайт</a>' in html
    assert client.get("/admin/dashboard/").status_code == 200


def test_no_list_opens_in_the_order_of_a_random_id(superuser):
    request = RequestFactory().get("/admin/")
    request.user = superuser
    for model, model_admin in admin.site._registry.items():
        if not isinstance(model._meta.pk, models.UUIDField):
            continue
        first = (model_admin.get_ordering(request) or model._meta.ordering or ["-pk"])[0]
        assert first.lstrip("-") not in ("pk", "id", model._meta.pk.name), model
