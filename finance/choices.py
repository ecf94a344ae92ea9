"""The finance models' choices: the API's own words, stored as they are spelled."""

from django.db import models
from django.utils.translation import pgettext_lazy


class Currency(models.TextChoices):
    RUB = "RUB", "RUB"


class Side(models.TextChoices):
    BUY = "Buy", "Buy"
    SELL = "Sell", "Sell"


class MethodType(models.TextChoices):
    SBP = "SBP", "SBP"
    BANK_CARD = "BankCard", "BankCard"


class IntegrationType(models.TextChoices):
    H2H = "h2h", "h2h"
    ORDER_WITH_FORM = "order_with_form", "order_with_form"


class ButtonName(models.TextChoices):
    ALFAPAY = "AlfaPay", "AlfaPay"
    SBERPAY = "SberPay", "SberPay"
    TPAY = "TPay", "TPay"
    VTBPAY = "VTBPay", "VTBPay"


class TransactionType(models.TextChoices):
    # Labels for people (the admin); the API and its filters spell the values.
    DEPOSIT = "deposit", pgettext_lazy("transaction type", "deposit")
    WITHDRAWAL = "withdrawal", pgettext_lazy("transaction type", "withdrawal")
    ORDER_BUY = "order_buy", pgettext_lazy("transaction type", "payment received (debit)")
    ORDER_SELL = "order_sell", pgettext_lazy("transaction type", "payout made (credit)")
    REWARD = "reward", pgettext_lazy("transaction type", "reward")
    REVENUE = "revenue", pgettext_lazy("transaction type", "revenue")


# Which types add to a balance and which take from it.
CREDIT_TYPES = frozenset(
    {
        TransactionType.DEPOSIT,
        TransactionType.ORDER_SELL,
        TransactionType.REWARD,
        TransactionType.REVENUE,
    }
)
DEBIT_TYPES = frozenset({TransactionType.WITHDRAWAL, TransactionType.ORDER_BUY})
# What each kind of account's ledger may hold.
MERCHANT_TRANSACTION_TYPES = (TransactionType.DEPOSIT, TransactionType.WITHDRAWAL)
TRADER_TRANSACTION_TYPES = (
    TransactionType.DEPOSIT,
    TransactionType.WITHDRAWAL,
    TransactionType.ORDER_BUY,
    TransactionType.ORDER_SELL,
    TransactionType.REWARD,
)


class AccountKind(models.TextChoices):
    TERMINAL = "terminal", pgettext_lazy("account kind", "merchant's terminal")
    TRADER = "trader", pgettext_lazy("account kind", "trader")
    PLATFORM = "platform", pgettext_lazy("account kind", "platform")


class ReserveState(models.TextChoices):
    OPEN = "open", pgettext_lazy("reserve state", "open")
    POSTED = "posted", pgettext_lazy("reserve state", "posted")
    VOIDED = "voided", pgettext_lazy("reserve state", "voided")
