"""The reader on messages of each bank's kinds beyond the contract's examples: other
amounts, names, card endings, spacing, with a title or without."""

import pytest

from traders.reader import bank_of_source, read_notification

from .tables import BANK_CODES, message_rows

MESSAGES = message_rows("""
# Sberbank: SMS from 900 and the app's pushes.
900 | | СЧЁТ4471 09:03 Перевод 250р от Мария К. Баланс: 1010р | 250 | incoming | Sberbank
900 | | ECMC1234 21:17 зачисление 12 500р Баланс: 40 000.10р | 12500 | incoming | Sberbank
900 | | MIR-0091 08:00 Зачисление 99.99р Баланс: 100р | 99.99 | incoming | Sberbank
900 | | VISA9912 11:41 Оплата 1299р MAGNIT Баланс: 2000р | 1299 | outgoing | Sberbank
900 | | MIR-4417 12:30 перевод 500р Баланс: 7000р | 500 | outgoing | Sberbank
900 | | MIR-4417 12:30 Выдача 3000р ATM 60001234 Баланс: 4000р | 3000 | outgoing | Sberbank
900 | | СЧЁТ2838 10:11 Перевод из Т-Банк +1 000р от Олег Н. Баланс: 5 000р | 1000 | incoming | Sberbank
ru.sberbankmobile | Перевод по СБП | Анна Петровна С. перевёл(а) вам 10 000 ₽ | 10000 | incoming | Sberbank
ru.sberbankmobile | Зачисление | Зачисление 1NBSP234,56NBSP₽ от Пётр П. | 1234.56 | incoming | Sberbank
ru.sberbankmobile | | Перевод от Олега Н. +3 300 ₽ | 3300 | incoming | Sberbank
ru.sberbankmobile | Покупка | Покупка 500 ₽ Перекрёсток. Баланс 10 000 ₽ | 500 | outgoing | Sberbank
900 | | Пароль для подтверждения перевода 500р: 12345. Никому не сообщайте | - | - | Sberbank
900 | | Сбербанк Онлайн: оформите кредит до 5 000 000р под 9% | - | - | Sberbank
900 | | СЧЁТ4471 Зачисление 1000000000000р | - | - | Sberbank
900 | | СЧЁТ4471 Зачисление 999999999999.99р | 999999999999.99 | incoming | Sberbank
# T-Bank
com.idamob.tinkoff.android | Пополнение | Пополнение, счет RUB. 7 777 ₽. Ирина В. Доступно 9 000 ₽ | 7777 | incoming | T-Bank
com.idamob.tinkoff.android | | Пополнение, счет RUB. 300,50THIN₽. Илья Р. Доступно 1THIN300,50THIN₽ | 300.50 | incoming | T-Bank
com.idamob.tinkoff.android | Покупка | Покупка, счет RUB. 450 ₽. YANDEX GO. Доступно 10 000 ₽ | 450 | outgoing | T-Bank
com.idamob.tinkoff.android | Перевод | Перевод, счет RUB. 2 000 ₽. Иван И. Доступно 3 000 ₽ | 2000 | outgoing | T-Bank
Tinkoff | | Пополнение на 150 RUB, счет RUB. Олег Б. Доступно 2 150,15 RUB | 150 | incoming | T-Bank
T-Bank | | Пополнение на 60 000,00 RUB, счет RUB. Денис Ф. Доступно 60 100 RUB | 60000 | incoming | T-Bank
Tinkoff | | Оплата 1 100 RUB, счет RUB. Mobile. Доступно 900 RUB | 1100 | outgoing | T-Bank
com.idamob.tinkoff.android | | Код подтверждения: 4821. Никому не говорите | - | - | T-Bank
com.idamob.tinkoff.android | Инвестиции | Получите акцию до 20 000 ₽ за первую сделку | - | - | T-Bank
# Alfa-Bank
ru.alfabank.mobile.android | Поступление | +15NBSP000,00 ₽ Перевод по СБП от Олега П. | 15000 | incoming | Alfa-Bank
ru.alfabank.mobile.android | Поступление | +640,10 ₽ Перевод по СБП от Анны В. | 640.10 | incoming | Alfa-Bank
ru.alfabank.mobile.android | Покупка | −2NBSP300,00 ₽ OZON.RU | 2300 | outgoing | Alfa-Bank
Alfa-Bank | | Поступление 2 100,00 RUR на счёт *0042 от Ирина К. Баланс 12 100,00 RUR | 2100 | incoming | Alfa-Bank
Alfa-Bank | | Pokupka 1 299,00 RUR Karta *5521 MAGNIT Balans 8 000,00 RUR | 1299 | outgoing | Alfa-Bank
AlfaBank | | Postuplenie 5 000,00 RUR na schet *5521. Balans 15 000,00 RUR | 5000 | incoming | Alfa-Bank
# VTB
VTB | | Поступление 320.00р Счет*1188 от АННА К. Баланс 1320.00р 18:45 | 320 | incoming | VTB
VTB | | Списание 150,00р Счет*3301 Оплата услуг Баланс 1850.00р | 150 | outgoing | VTB
VTB | | Поступление 1 000 000.00р Счет*3301 от ООО РОМАШКА. Баланс 1 200 000.00р 09:00 | 1000000 | incoming | VTB
ru.vtb24.mobilebanking.android | Зачисление | Вам перевели 12 345,67 ₽ по СБП от Ольги Д. | 12345.67 | incoming | VTB
ru.vtb24.mobilebanking.android | Зачисление | Вам перевели 4THIN500THIN₽ по СБП от Павла Л. | 4500 | incoming | VTB
ru.vtb24.mobilebanking.android | Перевод | Вы перевели 700 ₽ по СБП Ивану И. | 700 | outgoing | VTB
# Ozon Bank
ru.ozon.app.android | Ozon Банк | Пополнение по СБП на 2 500 ₽ от Ольга Н. | 2500 | incoming | Ozon
ru.ozon.app.android | Ozon Банк | Пополнение по СБП на 999NBSP₽ от Илья Т. | 999 | incoming | Ozon
ru.ozon.app.android | Ozon Банк | Оплата 1 499 ₽ на Ozon. Баланс 3 000 ₽ | 1499 | outgoing | Ozon
ru.ozon.fintech.finance | | Пополнение по СБП на 3 000,50 ₽ от Кирилл З. | 3000.50 | incoming | Ozon
ru.ozon.app.android | Ozon | Скидки до 70% на всё — успейте до воскресенья | - | - | Ozon
# MTS Bank
MTS-Bank | | Zachislenie 1 250.00 RUB. Karta *7781. Dostupno 3000.00 RUB | 1250 | incoming | MTS
MTS-Bank | | Zachislenie 600.50 RUB. Karta *0012. Dostupno 600.50 RUB | 600.50 | incoming | MTS
MTS-Bank | | Oplata 350.00 RUB. Karta *7781. PYATEROCHKA. Dostupno 850.00 RUB | 350 | outgoing | MTS
ru.mts.money | Перевод | Поступил перевод 7 000 ₽ от Анна Б. по номеру телефона | 7000 | incoming | MTS
ru.mts.money | Перевод | Поступил перевод 110NBSP₽ от Глеб Ж. по номеру телефона | 110 | incoming | MTS
MTS-Bank | | Kod dlya vhoda: 5521. Nikomu ne soobshayte | - | - | MTS
# Spacing of every kind, and no space at all.
| | Зачисление 1THINSP500р | 1500 | incoming | -
| | Зачисление 1FIGSP500,00 RUB | 1500 | incoming | -
| | Зачисление 1500.00RUR | 1500 | incoming | -
| | Зачисление 1 500 руб. | 1500 | incoming | -
| | Зачисление 2 000 рублей | 2000 | incoming | -
| | Зачисление 1,500.00 RUB | 1500 | incoming | -
| | Зачисление 1500p | 1500 | incoming | -
| | Поступление RUB 2 500.00 от ИВАН И. Баланс RUB 9 000.00 | 2500 | incoming | -
| | Зачисление ₽ 700. Доступно ₽ 1 700 | 700 | incoming | -
| | Счет RUB. Зачисление 300 RUB | 300 | incoming | -
# A balance or a limit first, the payment after it.
| | Баланс 10 000р. Зачисление 500р | 500 | incoming | -
| | Доступно 5 100 RUB. Пополнение на 100 RUB | 100 | incoming | -
| | Баланс карты пополнен на 700 ₽ | 700 | incoming | -
| | Перевод без комиссии 800 ₽ от Ивана И. | 800 | incoming | -
# Only a balance, a limit, a fee or a bonus: no payment.
| | Ваш баланс 5 000 ₽ | - | - | -
| | Доступный лимит 50 000 ₽ | - | - | -
| | Зачислен кэшбэк 150 ₽ | - | - | -
| | Лимит на переводы 100 000 ₽ в месяц | - | - | -
# No currency: a card ending, a time, a code is never an amount; nor another currency.
| | Зачисление на карту *5521 в 14:02 | - | - | -
| | Зачисление 100 USD | - | - | -
""")  # fmt: skip


@pytest.mark.parametrize(("source", "title", "text", "amount", "direction", "bank"), MESSAGES)
def test_messages_of_each_banks_kind(source, title, text, amount, direction, bank):
    reading = read_notification(text, title, source)
    assert (reading.amount, reading.direction, reading.bank) == (amount, direction, bank)


SOURCES = """
900 ru.sberbankmobile SberBank -> Sberbank
com.idamob.tinkoff.android ru.tinkoff.sme TINKOFF T-Bank -> T-Bank
ru.alfabank.mobile.android Alfa-Bank alfa_bank -> Alfa-Bank
VTB VTB24 ru.vtb24.mobilebanking.android -> VTB
ru.ozon.app.android OzonBank -> Ozon
MTS-Bank MTSBank ru.mts.money -> MTS
com.whatsapp 12345 -> -
"""
SOURCE_ROWS = [
    (source, BANK_CODES[bank])
    for line in SOURCES.strip().splitlines()
    for sources, bank in [line.split(" -> ")]
    for source in sources.split()
]


@pytest.mark.parametrize(("source", "bank"), [*SOURCE_ROWS, ("", None)])
def test_sources_name_their_bank(source, bank):
    assert bank_of_source(source) == bank
