"""Properties of the reader: any amount in any of the forms Russian banks write reads
back exactly, and a balance, an amount available or a limit beside it is never taken."""

from decimal import Decimal

from hypothesis import example, given
from hypothesis import strategies as st

from traders.reader import INCOMING, OUTGOING, read_notification

SPACES = [" ", "\u00a0", "\u202f", "\u2009"]

amounts = st.integers(min_value=1, max_value=99_999_999_99).map(lambda c: Decimal(c) / 100)
spaces = st.sampled_from(SPACES)
gaps = st.sampled_from(["", *SPACES])


def grouped(whole: int, sep: str) -> str:
    return f"{whole:,}".replace(",", sep)


@st.composite
def rendered(draw, amount_strategy=amounts):
    """(amount, its text in one of the forms banks write, whether it carries a +)."""
    amount = draw(amount_strategy)
    whole, kopecks = int(amount), int(amount * 100) % 100
    sep, gap = draw(spaces), draw(gaps)
    form = draw(st.sampled_from(["rub_sign", "r", "rub_comma", "rur_dot", "plus"]))
    cents = f"{kopecks:02d}"
    if form == "rub_sign":  # 1 500 ₽ / 1 500,50 ₽
        text = grouped(whole, sep) + (f",{cents}" if kopecks else "") + f"{gap}₽"
    elif form == "r":  # 1500р / 1500.50р
        text = str(whole) + (f".{cents}" if kopecks else "") + f"{gap}р"
    elif form == "rub_comma":  # 1 500,00 RUB
        text = f"{grouped(whole, sep)},{cents}{gap}RUB"
    elif form == "rur_dot":  # 1500.00 RUR
        text = f"{whole}.{cents}{gap}RUR"
    else:  # +1 500 ₽
        text = "+" + grouped(whole, sep) + (f",{cents}" if kopecks else "") + f"{gap}₽"
    return amount, text, form == "plus"


INCOMING_TEMPLATES = [
    ("900", "", "СЧЁТ{c} 14:02 Перевод {a} от {n}"),
    ("900", "", "MIR-{c} 09:15 зачисление {a}"),
    ("ru.sberbankmobile", "Перевод по СБП", "{n} перевёл(а) вам {a}"),
    ("com.idamob.tinkoff.android", "Пополнение", "Пополнение, счет RUB. {a}. {n}"),
    ("Tinkoff", "", "Пополнение на {a}, счет RUB. {n}"),
    ("ru.alfabank.mobile.android", "Поступление", "{a} Перевод по СБП от {n}"),
    ("Alfa-Bank", "", "Поступление {a} на счёт *{c} от {n}"),
    ("VTB", "", "Поступление {a} Счет*{c} от {n}"),
    ("ru.vtb24.mobilebanking.android", "Зачисление", "Вам перевели {a} по СБП от {n}"),
    ("ru.ozon.app.android", "Ozon Банк", "Пополнение по СБП на {a} от {n}"),
    ("MTS-Bank", "", "Zachislenie {a}. Karta *{c}."),
    ("ru.mts.money", "Перевод", "Поступил перевод {a} от {n} по номеру телефона"),
]
OUTGOING_TEMPLATES = [
    ("900", "", "MIR-{c} 19:40 Покупка {a} PYATEROCHKA"),
    ("VTB", "", "Списание {a} Счет*{c} Перевод по СБП"),
    ("com.idamob.tinkoff.android", "Покупка", "Покупка, счет RUB. {a}. YANDEX GO."),
]
NAMES = [
    "Иван И.",
    "Иван Иванович И.",
    "ИВАН И.",
    "Пётр С.",
    "Анна-Мария К.",
    "Ёлкин Ф.",
    "Остапенко О.",
    "Балашов Б.",
    "Доступов Д.",
    "Лимитов Л.",
    "Кодин К.",
    "IVAN I.",
    "Сергей М.",
    "ООО РОМАШКА",
]
names = st.sampled_from(NAMES)
card_endings = st.integers(min_value=0, max_value=9999).map(lambda n: f"{n:04d}")
titled = st.booleans()


def message(template, amount_text, name, card, keep_title):
    source, title, body = template
    text = body.format(a=amount_text, n=name, c=card)
    return text, title if keep_title else "", source


BALANCES = ["Баланс: {b}", "Баланс {b}", "Доступно {b}", "Dostupno {b}", "Остаток {b}", "Лимит {b}"]


@given(rendered(), st.sampled_from(INCOMING_TEMPLATES), names, card_endings, titled)
@example(
    (Decimal("1500"), "1\u00a0500\u00a0₽", False), INCOMING_TEMPLATES[0], "Иван И.", "2838", True
)
def test_any_amount_in_any_form_reads_back_exactly(money, template, name, card, keep_title):
    amount, text, _ = money
    reading = read_notification(*message(template, text, name, card, keep_title))
    assert reading.amount == amount
    assert reading.direction == INCOMING


@given(rendered(), st.sampled_from(OUTGOING_TEMPLATES), card_endings, titled)
def test_a_debit_reads_as_outgoing_unless_its_sign_says_otherwise(
    money, template, card, keep_title
):
    amount, text, plus = money
    reading = read_notification(*message(template, text, "", card, keep_title))
    assert reading.amount == amount
    assert reading.direction == (INCOMING if plus else OUTGOING)


@given(
    rendered(),
    rendered(),
    st.sampled_from(INCOMING_TEMPLATES + OUTGOING_TEMPLATES),
    st.sampled_from(BALANCES),
    st.booleans(),
    names,
    card_endings,
)
def test_a_balance_beside_the_payment_is_never_taken(
    money, balance, template, words, first, name, card
):
    amount, text, _ = money
    _, balance_text, _ = balance
    payment, title, source = message(template, text, name, card, True)
    beside = words.format(b=balance_text.lstrip("+"))
    text = f"{beside}. {payment}" if first else f"{payment} {beside}"
    assert read_notification(text, title, source).amount == amount


@given(rendered(), st.sampled_from(BALANCES))
def test_a_balance_alone_is_no_payment(balance, words):
    _, text, _ = balance
    reading = read_notification(words.format(b=text.lstrip("+")), "", "900")
    assert (reading.amount, reading.direction) == (None, None)


@given(st.text(max_size=300), st.text(max_size=40), st.text(max_size=40))
def test_any_text_reads_without_error(text, title, source):
    reading = read_notification(text, title, source)
    assert reading.amount is None or reading.amount > 0
    assert (reading.amount is None) == (reading.direction is None)
