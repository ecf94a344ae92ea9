"""The reader on every example of bank-notifications.md, row by row."""

import pytest

from traders.reader import read_notification

from .tables import BANK_CODES, message_rows

# bank-notifications.md, as written there.
EXAMPLES = message_rows("""
900 | | СЧЁТ2838 14:02 Перевод 1500р от Иван И. Баланс: 24210.55р | 1500.00 | incoming | Sberbank
ru.sberbankmobile | Перевод по СБП | Иван Иванович И. перевёл(а) вам 2 750 ₽ | 2750.00 | incoming | Sberbank
900 | | MIR-4417 09:15 зачисление 3100.50р Баланс: 8000р | 3100.50 | incoming | Sberbank
900 | | MIR-4417 19:40 Покупка 350р PYATEROCHKA Баланс: 7650р | 350.00 | outgoing | Sberbank
com.idamob.tinkoff.android | Пополнение | Пополнение, счет RUB. 12 000 ₽. Пётр С. Доступно 40 512,30 ₽ | 12000.00 | incoming | T-Bank
Tinkoff | | Пополнение на 4 999,99 RUB, счет RUB. Анна К. Доступно 5 100 RUB | 4999.99 | incoming | T-Bank
ru.alfabank.mobile.android | Поступление | +1NBSP250,00 ₽ Перевод по СБП от Ивана И. | 1250.00 | incoming | Alfa-Bank
Alfa-Bank | | Поступление 7 430,00 RUR на счёт *5521 от Ольга Т. Баланс 10 002,14 RUR | 7430.00 | incoming | Alfa-Bank
VTB | | Поступление 15000.00р Счет*3301 от ИВАН И. Баланс 61500.00р 10:22 | 15000.00 | incoming | VTB
ru.vtb24.mobilebanking.android | Зачисление | Вам перевели 980THIN₽ по СБП от Марии Ш. | 980.00 | incoming | VTB
ru.ozon.app.android | Ozon Банк | Пополнение по СБП на 1 100 ₽ от Сергей М. | 1100.00 | incoming | Ozon
MTS-Bank | | Zachislenie 450.00 RUB. Karta *7781. Dostupno 1200.00 RUB | 450.00 | incoming | MTS
ru.mts.money | Перевод | Поступил перевод 530 ₽ от Дмитрий В. по номеру телефона | 530.00 | incoming | MTS
900 | | Код для входа в СберБанк Онлайн: 48213. Никому его не сообщайте. | - | - | Sberbank
com.idamob.tinkoff.android | Кэшбэк | Повышенный кэшбэк 10% в ресторанах до конца месяца | - | - | T-Bank
VTB | | Списание 2 000,00р Счет*3301 Перевод по СБП Баланс 59500.00р | 2000.00 | outgoing | VTB
""")  # fmt: skip


def test_the_table_holds_all_sixteen_examples():
    assert len(EXAMPLES) == 16


@pytest.mark.parametrize(("source", "title", "text", "amount", "direction", "bank"), EXAMPLES)
def test_every_example_of_the_contract_reads_as_written(
    source, title, text, amount, direction, bank
):
    reading = read_notification(text, title, source)
    assert (reading.amount, reading.direction, reading.bank) == (amount, direction, bank)


def test_an_unknown_source_takes_the_bank_its_text_names():
    reading = read_notification("Сбербанк: зачисление 500р", "", "com.android.messaging")
    assert reading.bank == BANK_CODES["Sberbank"]
    assert read_notification("Зачисление 500р", "", "1234").bank is None


def test_sbp_is_not_sber():
    assert read_notification("Пополнение по СБП 500 ₽", "", "").bank is None
