"""The finance models' choices: the API's own words, stored as they are spelled."""

from django.db import models


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
    DEPOSIT = "deposit", "deposit"
    WITHDRAWAL = "withdrawal", "withdrawal"
    ORDER_BUY = "order_buy", "order_buy"
    ORDER_SELL = "order_sell", "order_sell"
    REWARD = "reward", "reward"
    REVENUE = "revenue", "revenue"


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
    TERMINAL = "terminal", "terminal"
    TRADER = "trader", "trader"
    PLATFORM = "platform", "platform"


class ReserveState(models.TextChoices):
    OPEN = "open", "open"
    POSTED = "posted", "posted"
    VOIDED = "voided", "voided"
