"""Reading a bank's push or SMS (traders.md §20, bank-notifications.md): the amount
of the payment, its direction and the bank. A pure function: text in, a Reading out,
no database.

Every bank writes the same few things in its own words, so the reader is two kinds
of table rather than one parser per message:

- BANKS: who sent it (an app's package or an SMS sender) or which bank the words
  name, each bank with its NSPK code;
- the grammar shared by all of them: an amount is a number with a currency sign
  (`1 500 ₽`, `1500р`, `1 500,00 RUB`, `1500.00 RUR`, `+1 500 ₽`, thousands split by
  any space), the payment's amount is the first one that is not a balance, a limit,
  a fee or a bonus (the words just before it say which), and the direction comes
  from the amount's sign or the first word that says which way money moved.

A confirmation code or an advertisement is no payment: amount and direction null.
"""

import re
from dataclasses import dataclass
from decimal import Decimal

INCOMING = "incoming"
OUTGOING = "outgoing"


@dataclass(frozen=True)
class Reading:
    amount: Decimal | None
    direction: str | None
    bank: str | None  # the bank's nspk_code


@dataclass(frozen=True)
class BankKind:
    nspk_code: str
    name: str
    # SMS senders, compared without case, spaces or punctuation.
    senders: tuple[str, ...]
    # App packages: the source starts with one of these.
    packages: tuple[str, ...]
    # The bank named in a title or a text (already lower-cased, ё as е).
    named: str


BANKS: tuple[BankKind, ...] = (
    BankKind(
        "100000000111",
        "Sberbank",
        senders=("900", "9000", "9001", "8900", "sberbank", "sber", "sberbankonline", "сбербанк"),
        packages=("ru.sberbankmobile", "ru.sberbank", "ru.sber."),
        named=r"сбер|\bsber",
    ),
    BankKind(
        "100000000004",
        "T-Bank",
        senders=("tinkoff", "tbank", "tinkoffbank", "т-банк", "тбанк", "тинькофф"),
        packages=("com.idamob.tinkoff", "ru.tinkoff", "ru.tbank", "com.tbank"),
        named=r"т-банк|\bтбанк|тинькофф|tinkoff|\bt-bank|\btbank",
    ),
    BankKind(
        "100000000008",
        "Alfa-Bank",
        senders=("alfabank", "alfa", "alfa-bank", "альфабанк", "альфа-банк"),
        packages=("ru.alfabank",),
        named=r"альфа|\balfa",
    ),
    BankKind(
        "100000000005",
        "VTB",
        senders=("vtb", "vtb24", "vtbbank", "втб"),
        packages=("ru.vtb24", "ru.vtb", "com.vtb"),
        named=r"\bвтб|\bvtb",
    ),
    BankKind(
        "100000000273",
        "Ozon Bank",
        senders=("ozon", "ozonbank", "ozonbankru", "озонбанк"),
        packages=("ru.ozon",),
        named=r"\bозон|\bozon",
    ),
    BankKind(
        "100000000017",
        "MTS Bank",
        senders=("mtsbank", "mts-bank", "mtsmoney", "мтсбанк", "мтс-банк"),
        packages=("ru.mts.money", "ru.mts.bank", "ru.mtsbank", "ru.mts"),
        named=r"\bмтс|\bmts",
    ),
)
_NAMED = [(re.compile(bank.named), bank.nspk_code) for bank in BANKS]

# --- The amount -------------------------------------------------------------------------

# Thousands may be split by any space (normalised to " " first); kopecks follow a
# comma or a dot. The English "1,500.00" and the German "1.500,00" are read too.
_NUMBER = (
    r"\d{1,3}(?:,\d{3})+\.\d{1,2}"
    r"|\d{1,3}(?:\.\d{3})+,\d{1,2}"
    r"|(?:\d{1,3}(?: \d{3})+|\d+)(?:[.,]\d{1,2})?"
)
_CURRENCY = r"(?:₽|руб(?:л[а-я]*)?(?![а-я])\.?|[рp](?![а-яa-z])\.?|ru[br](?![a-z])\.?)"
_AMOUNT = re.compile(
    # A sign counts only where it stands before the number, not inside "MIR-4417";
    # a number glued to a word, a card ending, a time or a date is no amount.
    r"(?:(?<![^\s(:])(?P<sign>[+-]))?(?(sign)|(?<![\d.,:*/\w+-]))"
    r"(?P<number>" + _NUMBER + r")(?!\d) ?(?P<currency>" + _CURRENCY + r")"
)
# The currency written first ("RUB 1 500.00", "₽ 500"): read only when no amount has
# its currency after it.
_AMOUNT_AFTER_CURRENCY = re.compile(
    r"(?<![\w.])(?P<currency>₽|rub|rur|руб\.?) ?(?P<sign>[+-])?(?P<number>"
    + _NUMBER
    + r")(?![\d\w])"
)

# Words after which an amount is not the payment's: what is left, what may be spent,
# a limit, a fee, a bonus, an offer's "up to".
_NOT_THE_PAYMENT = re.compile(
    r"баланс|\bбал\b|остат|\bост\b|доступ|лимит|задолжен|(?<!без )комисси|кэшб|кешб|бонус|балл"
    r"|\bbalans|\bbalance|ostatok|dostup|available|\blimit|komissi|\bfee\b|cashback"
    r"|\bдо\s*$"
)

# --- The direction ----------------------------------------------------------------------

_INCOMING_WORDS = (
    r"зачисл|поступ|пополнен|входящ|получен|получили|пришл|пришел|возврат"
    r"|перевел\S*\s+вам|перевела\s+вам|отправил\S*\s+вам|вам\s+(?:перевели|отправили|пришл)"
    r"|zachisl|postup|popolnen|incoming|received|refund|credited"
)
_OUTGOING_WORDS = (
    r"списан|покупк|оплат|снятие|выдач|исходящ|вы\s+перевели|вы\s+отправили|отправлен"
    r"|spisan|pokupk|oplat|snyat|vydach|purchase|payment|debited|withdrawal"
)
_DIRECTION_WORDS = re.compile(rf"(?P<incoming>{_INCOMING_WORDS})|(?P<outgoing>{_OUTGOING_WORDS})")
# A bare "transfer": incoming when it names whom it came from, else the account
# holder's own transfer out (Sber's "Перевод 500р", T-Bank's "Перевод, счет RUB").
_TRANSFER = re.compile(r"перевод|perevod|transfer")
_FROM = re.compile(r"(?:^|\s)(?:от|ot|from)\s")
# Money words that rescue an amount from a balance word before them ("Баланс карты
# пополнен на 500 ₽").
_PAYMENT_WORDS = re.compile(rf"{_INCOMING_WORDS}|{_OUTGOING_WORDS}")

# --- What is no payment -----------------------------------------------------------------

_CODE = re.compile(
    r"\bкод(?:а|ом|у|ы)?\b|\bпарол|\bcode\b|\bkod\b|\bparol|никому\s+не|не\s+сообщайте|nikomu"
)
_ADVERTISEMENT = re.compile(
    r"получите|оформите|подключите|закажите|успейте|попробуйте|участвуйте|переходите"
    r"|акци[яи]|скидк|выгодн|\bдо\s+конца\b|poluchite|oformite"
)

_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]+")
_MINUSES = str.maketrans({"−": "-", "–": "-", "—": "-", "‒": "-", "‑": "-", "‐": "-"})


def _normal(value: str) -> str:
    """One plain space for every spacing, one minus, lower case, е for ё."""
    value = _SPACES.sub(" ", value or "").translate(_MINUSES)
    return value.lower().replace("ё", "е").strip()


def read_notification(text: str, title: str = "", source: str = "") -> Reading:
    """What a bank notification says: the payment's amount, incoming or outgoing, and
    the bank (its nspk_code) that the source, the title or the text names."""
    body, head = _normal(text), _normal(title)
    bank = bank_of_source(source) or _bank_named(head) or _bank_named(body)
    if _CODE.search(body) or _ADVERTISEMENT.search(body):
        return Reading(None, None, bank)
    found = _payment_amount(body) or _payment_amount(head)
    if found is None:
        return Reading(None, None, bank)
    amount, sign = found
    direction = _direction(body, head, sign)
    if direction is None:
        return Reading(None, None, bank)
    return Reading(amount, direction, bank)


def bank_of_source(source: str) -> str | None:
    """The bank whose app or SMS sender this is, by the table."""
    raw = (source or "").strip().lower()
    if not raw:
        return None
    sender = re.sub(r"[\s_.]+", "", raw)
    for bank in BANKS:
        if sender in bank.senders or sender.replace("-", "") in bank.senders:
            return bank.nspk_code
        if any(raw.startswith(package) for package in bank.packages):
            return bank.nspk_code
    return None


def _bank_named(text: str) -> str | None:
    """The bank named first in a text ("СБП" is the payment system, not Sber)."""
    best: tuple[int, str] | None = None
    for pattern, code in _NAMED:
        match = pattern.search(text)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), code)
    return None if best is None else best[1]


def _payment_amount(text: str) -> tuple[Decimal, str] | None:
    """The first amount that is not a balance, a limit, a fee or a bonus, with its
    sign ("" when it has none)."""
    for pattern in (_AMOUNT, _AMOUNT_AFTER_CURRENCY):
        start = 0
        for match in pattern.finditer(text):
            before = text[start : match.start()]
            start = match.end()
            if _is_not_the_payment(before):
                continue
            amount = _decimal(match.group("number"))
            if amount is not None and amount > 0:
                return amount, match.group("sign") or ""
    return None


def _is_not_the_payment(before: str) -> bool:
    """Whether the words since the previous amount end on a balance word (one that
    no payment word follows)."""
    ends = [match.end() for match in _NOT_THE_PAYMENT.finditer(before)]
    return bool(ends) and _PAYMENT_WORDS.search(before, ends[-1]) is None


def _decimal(number: str) -> Decimal | None:
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+\.\d{1,2}", number):
        number = number.replace(",", "")
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3})+,\d{1,2}", number):
        number = number.replace(".", "")
    number = number.replace(" ", "").replace(",", ".")
    try:
        value = Decimal(number).quantize(Decimal("0.01"))
    except ArithmeticError:
        return None
    # No amount the service takes has more than twelve digits before the point
    # (core.amounts): a longer number is no payment of ours, whatever it is.
    return value if value.adjusted() < 12 else None


def _direction(body: str, head: str, sign: str) -> str | None:
    if sign == "+":
        return INCOMING
    if sign == "-":
        return OUTGOING
    for part in (body, head):
        match = _DIRECTION_WORDS.search(part)
        if match:
            return INCOMING if match.group("incoming") else OUTGOING
    for part in (body, head):
        transfer = _TRANSFER.search(part)
        if transfer:
            return INCOMING if _FROM.search(body, transfer.end()) else OUTGOING
    return None
