"""The payer's page strings, Russian (default) and English."""

TEXTS = {
    "ru": {
        "title": "Оплата",
        "merchant": "Получатель",
        "amount": "Сумма",
        "choose_method": "Выберите способ оплаты",
        "searching": "Подбираем реквизиты…",
        "searching_hint": "Обычно это занимает несколько секунд. Не закрывайте страницу.",
        "pay_to": "Переведите точную сумму по реквизитам",
        "account": "Реквизиты",
        "holder": "Получатель перевода",
        "bank": "Банк",
        "copy": "Копировать",
        "copied": "Скопировано",
        "time_left": "Осталось времени",
        "open_bank": "Открыть приложение банка",
        "pay_from": "Оплатите из приложения банка",
        "finish_in": "Страницу можно будет закрыть через",
        "can_close": "Страницу можно закрыть.",
        "paid": "Я оплатил",
        "waiting": "Проверяем поступление платежа",
        "waiting_hint": "Как только перевод будет подтверждён, страница обновится сама.",
        "success": "Оплата прошла успешно",
        "redirect_in": "Возврат в магазин через",
        "seconds": "с",
        "go_now": "Вернуться сейчас",
        "not_found": "Не удалось подобрать реквизиты",
        "not_found_hint": "Попробуйте позже, другую сумму или другой способ оплаты.",
        "expired": "Время на оплату истекло",
        "expired_hint": "Создайте новый платёж в магазине.",
        "cancelled": "Платёж отменён",
        "cancelled_hint": "Если вы уже перевели деньги, обратитесь в поддержку.",
        "back": "Вернуться на сайт",
        "support": "Поддержка",
        "order": "Заказ",
        "missing_title": "Страница не найдена",
        "missing_hint": "Ссылка на оплату неверна или устарела.",
        "stale_title": "Страница устарела",
        "stale_hint": "Откройте страницу оплаты заново и повторите действие.",
        "reopen": "Открыть страницу оплаты",
        "exact_amount": "Переводите ровно эту сумму одним платежом, иначе платёж не будет найден.",
        "language": "English",
    },
    "en": {
        "title": "Payment",
        "merchant": "Merchant",
        "amount": "Amount",
        "choose_method": "Choose a payment method",
        "searching": "Finding payment details…",
        "searching_hint": "This usually takes a few seconds. Please keep this page open.",
        "pay_to": "Transfer the exact amount to these details",
        "account": "Pay to",
        "holder": "Recipient",
        "bank": "Bank",
        "copy": "Copy",
        "copied": "Copied",
        "time_left": "Time left",
        "open_bank": "Open the bank app",
        "pay_from": "Pay from your bank's app",
        "finish_in": "You can close this page in",
        "can_close": "You can close this page now.",
        "paid": "I have paid",
        "waiting": "Checking your payment",
        "waiting_hint": "This page updates by itself as soon as the transfer is confirmed.",
        "success": "Payment successful",
        "redirect_in": "Returning to the shop in",
        "seconds": "s",
        "go_now": "Return now",
        "not_found": "No payment details available",
        "not_found_hint": "Please try later, another amount or another payment method.",
        "expired": "The time to pay has run out",
        "expired_hint": "Please start a new payment at the shop.",
        "cancelled": "The payment was cancelled",
        "cancelled_hint": "If you have already sent money, please contact support.",
        "back": "Back to the shop",
        "support": "Support",
        "order": "Order",
        "missing_title": "Page not found",
        "missing_hint": "This payment link is wrong or out of date.",
        "stale_title": "This page is out of date",
        "stale_hint": "Open the payment page again and repeat what you did.",
        "reopen": "Open the payment page",
        "exact_amount": "Send exactly this amount in one transfer, or the payment cannot be matched.",
        "language": "Русский",
    },
}


def _quality(params: list[str]) -> float:
    for param in params:
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


def language_for(request) -> str:
    """?lang= wins; else the language we speak that Accept-Language rates highest
    (the earlier one on a tie); else Russian."""
    asked = (request.GET.get("lang") or request.POST.get("lang") or "").lower()
    if asked in TEXTS:
        return asked
    best, best_q = "ru", 0.0
    for part in request.headers.get("Accept-Language", "").split(","):
        tag, *params = part.split(";")
        lang = tag.strip().lower().split("-")[0]
        q = _quality(params)
        if lang in TEXTS and q > best_q:
            best, best_q = lang, q
    return best
