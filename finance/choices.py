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


class ReserveState(models.TextChoices):
    OPEN = "open", "open"
    POSTED = "posted", "posted"
    VOIDED = "voided", "voided"
