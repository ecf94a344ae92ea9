"""Load the demo data set of docs/demo-data.md. Idempotent: a second run changes nothing."""

from decimal import Decimal
from io import StringIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from core.keys import hash_key
from demo.devices import seed_devices
from finance.accounts import luhn_ok
from finance.models import (
    ApiKey,
    BlacklistedAccount,
    ButtonName,
    Client,
    FeeRange,
    IntegrationType,
    MethodType,
    PaymentMethod,
    Side,
    Terminal,
    TerminalMethod,
)
from finance.services import (
    api_key_issue,
    api_key_revoke,
    balance_credit,
    terminal_create,
)
from orders.models import Requisite, Trader, TraderApiKey
from orders.services import trader_key_issue

from ...books_seed import seed_books
from ...trader_users import seed_trader_users

WEBHOOK_SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="

BUY_SBP = (Decimal(100), Decimal(300000), Decimal(5), Decimal(0))
SELL_SBP = (Decimal(500), Decimal(100000), Decimal(3), Decimal(50))
BUY_CARD = (Decimal(500), Decimal(150000), Decimal(6), Decimal(0))
SELL_CARD = (Decimal(1000), Decimal(150000), Decimal(4), Decimal(100))

# name, type, nspk, active, aggregate, bank slug, buy range, sell range, deeplink
METHODS = [
    ("SBP", MethodType.SBP, None, True, True, "", BUY_SBP, None, ""),
    (
        "Sberbank SBP",
        MethodType.SBP,
        "100000000111",
        True,
        False,
        "sberbank",
        BUY_SBP,
        SELL_SBP,
        "https://www.sberbank.com/sms/pbpn?requisiteNumber={account}&amount={amount}",
    ),
    (
        "T-Bank SBP",
        MethodType.SBP,
        "100000000004",
        True,
        False,
        "tinkoff",
        BUY_SBP,
        SELL_SBP,
        "https://www.tbank.ru/mybank/payments/persons/phone/?requisiteNumber={account}&amount={amount}",
    ),
    (
        "Alfa-Bank SBP",
        MethodType.SBP,
        "100000000008",
        True,
        False,
        "alfabank",
        BUY_SBP,
        SELL_SBP,
        "https://alfa-mobile.alfabank.ru/mobile-public/goto/transfer?phone={account}&amount={amount}",
    ),
    (
        "VTB SBP",
        MethodType.SBP,
        "100000000005",
        True,
        False,
        "vtb",
        BUY_SBP,
        SELL_SBP,
        "https://online.vtb.ru/i/transfer?phone={account}&amount={amount}",
    ),
    ("Bank card", MethodType.BANK_CARD, None, True, False, "", BUY_CARD, SELL_CARD, ""),
    ("Ozon Bank SBP", MethodType.SBP, "100000000273", True, False, "", BUY_SBP, None, ""),
    ("MTS Bank SBP", MethodType.SBP, "100000000017", True, False, "", BUY_SBP, None, ""),
    ("Legacy card", MethodType.BANK_CARD, None, False, False, "", BUY_CARD, None, ""),
]

HINTS = {
    "Sberbank SBP": (
        "Откройте СберБанк Онлайн → Платежи → По номеру телефона.",
        "Open SberBank Online → Payments → By phone number.",
    ),
    "T-Bank SBP": (
        "Откройте приложение Т-Банка → Платежи → По номеру телефона.",
        "Open the T-Bank app → Payments → By phone number.",
    ),
    "Alfa-Bank SBP": (
        "Откройте Альфа-Онлайн → Платежи → По номеру телефона.",
        "Open Alfa-Online → Payments → By phone number.",
    ),
    "VTB SBP": (
        "Откройте ВТБ Онлайн → Платежи → По номеру телефона.",
        "Open VTB Online → Payments → By phone number.",
    ),
    "Bank card": (
        "Переведите сумму на карту через приложение вашего банка.",
        "Transfer the amount to the card in your bank's app.",
    ),
}

# The names payers read on the Russian page (docs/demo-data.md#payment-methods).
NAMES_RU = {
    "SBP": "СБП",
    "Sberbank SBP": "Сбербанк (СБП)",
    "T-Bank SBP": "Т-Банк (СБП)",
    "Alfa-Bank SBP": "Альфа-Банк (СБП)",
    "VTB SBP": "ВТБ (СБП)",
    "Bank card": "Банковская карта",
    "Ozon Bank SBP": "Озон Банк (СБП)",
    "MTS Bank SBP": "МТС Банк (СБП)",
    "Legacy card": "Карта (устаревший способ)",
}

TRADERS = [
    ("Trader One", "demo-trader-1-key"),
    ("Trader Two", "demo-trader-2-key"),
    ("Trader Three", "demo-trader-3-key"),
]
HOLDERS = ["Иван П.", "Анна С.", "Олег К."]
# method name -> the two traders (by index) holding its requisites
REQUISITES = {
    "Sberbank SBP": (0, 1),
    "T-Bank SBP": (1, 2),
    "Alfa-Bank SBP": (0, 2),
    "VTB SBP": (0, 1),
    "Bank card": (1, 2),
}
# The sandbox trader (docs/sandbox.md) holds two requisites on each of these, and no live
# trader holds any sandbox requisite.
SANDBOX_TRADER = ("Sandbox Trader", "demo-sandbox-trader-key")
SANDBOX_HOLDERS = ["Тестовый получатель А.", "Тестовый получатель Б."]
SANDBOX_REQUISITE_METHODS = [
    "Sberbank SBP",
    "T-Bank SBP",
    "Alfa-Bank SBP",
    "VTB SBP",
    "Bank card",
    "MTS Bank SBP",
]
CARDS = ["2200700112345671", "2200700112345689", "2200700112345697", "2200700112345705"]

TERMINALS = [
    # client, name, key, integration, form, buttons, starting balance
    (
        "Demo Merchant",
        "Demo Shop",
        "demo-shop-key",
        IntegrationType.H2H,
        True,
        [ButtonName.SBERPAY, ButtonName.TPAY, ButtonName.ALFAPAY],
        Decimal("100000.00"),
    ),
    (
        "Demo Merchant",
        "Form Shop",
        "demo-form-key",
        IntegrationType.ORDER_WITH_FORM,
        True,
        [ButtonName.SBERPAY, ButtonName.TPAY, ButtonName.ALFAPAY, ButtonName.VTBPAY],
        Decimal("0.00"),
    ),
    (
        "Closed Merchant",
        "Closed Shop",
        "demo-closed-key",
        IntegrationType.H2H,
        False,
        [],
        Decimal("0.00"),
    ),
    (
        "Demo Merchant",
        "Sandbox Shop",
        "demo-sandbox-key",
        IntegrationType.H2H,
        True,
        [ButtonName.SBERPAY, ButtonName.TPAY, ButtonName.ALFAPAY, ButtonName.VTBPAY],
        Decimal("100000.00"),
    ),
]
SANDBOX_TERMINALS = {"Sandbox Shop"}
BUTTON_METHODS = {
    ButtonName.SBERPAY: "Sberbank SBP",
    ButtonName.TPAY: "T-Bank SBP",
    ButtonName.ALFAPAY: "Alfa-Bank SBP",
    ButtonName.VTBPAY: "VTB SBP",
}


def _luhn_complete(prefix: str) -> str:
    """`prefix` and the one check digit that makes it a valid card number."""
    return next(prefix + d for d in "0123456789" if luhn_ok(prefix + d))


class Command(BaseCommand):
    help = "Load the demo data set (docs/demo-data.md). Idempotent."

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Run even with DEBUG off")

    def handle(self, *args, force=False, **options):
        if not settings.DEBUG and not force:
            raise CommandError(
                "seed_demo installs well-known keys; refusing with DEBUG off (use --force)"
            )
        with transaction.atomic():
            methods = self._methods()
            traders = self._traders()
            self._requisites(methods, traders)
            self._sandbox_trader(methods)
            self._terminals(methods)
            for account in ("2200000000000665", "+79990006666"):
                BlacklistedAccount.objects.get_or_create(
                    account=account, defaults={"comment": "Demo blacklist"}
                )
            self._operator()
            seed_books(methods)
            seed_trader_users()
            seed_devices()  # last: binds the requisites made above
        self.stdout.write(self.style.SUCCESS("Demo data loaded"))

    def _methods(self) -> dict[str, PaymentMethod]:
        out = {}
        for name, mtype, nspk, active, aggregate, slug, buy, sell, deeplink in METHODS:
            hint_ru, hint_en = HINTS.get(name, ("", ""))
            method, _ = PaymentMethod.objects.update_or_create(
                name=name,
                defaults={
                    "method_type": mtype,
                    "nspk_code": nspk,
                    "is_active": active,
                    "is_aggregate": aggregate,
                    "bank_slug": slug,
                    "deeplink_template": deeplink,
                    "hint_ru": hint_ru,
                    "hint_en": hint_en,
                    "name_ru": NAMES_RU.get(name, ""),
                },
            )
            for side, spec in ((Side.BUY, buy), (Side.SELL, sell)):
                if spec is None:
                    FeeRange.objects.filter(method=method, side=side).delete()
                    continue
                low, high, fee, fixed = spec
                FeeRange.objects.update_or_create(
                    method=method,
                    side=side,
                    defaults={
                        "min_amount": low,
                        "max_amount": high,
                        "fee": fee,
                        "fixed_fee": fixed,
                    },
                )
            out[name] = method
        return out

    def _traders(self) -> list[Trader]:
        traders = []
        for name, raw in TRADERS:
            trader, _ = Trader.objects.get_or_create(name=name)
            if not TraderApiKey.objects.filter(key_hash=hash_key(raw)).exists():
                trader_key_issue(trader=trader, name="demo", raw=raw)
            traders.append(trader)
        return traders

    def _requisites(self, methods, traders):
        holdings = [
            (methods[method_name], traders[index], HOLDERS[index])
            for method_name, holders in REQUISITES.items()
            for index in holders
        ]
        self._hold(holdings, phone_prefix="+7999000", card_from=7001)

    def _sandbox_trader(self, methods):
        name, raw = SANDBOX_TRADER
        trader, _ = Trader.objects.update_or_create(name=name, defaults={"sandbox": True})
        if not TraderApiKey.objects.filter(key_hash=hash_key(raw)).exists():
            trader_key_issue(trader=trader, name="demo", raw=raw)
        holdings = [
            (methods[method_name], trader, holder)
            for method_name in SANDBOX_REQUISITE_METHODS
            for holder in SANDBOX_HOLDERS
        ]
        self._hold(holdings, phone_prefix="+7999001", card_from=8001)

    def _hold(self, holdings, *, phone_prefix: str, card_from: int):
        """Requisites for (method, trader, holder) rows: SBP phones and Luhn-valid
        cards numbered in the order given."""
        phone = 0
        card = 0
        for method, trader, holder in holdings:
            if method.method_type == MethodType.SBP:
                phone += 1
                account = f"{phone_prefix}{1000 + phone:04d}"
            else:
                account = _luhn_complete(f"2200{card_from + card:011d}"[:15])
                card += 1
            Requisite.objects.get_or_create(
                trader=trader,
                method=method,
                account=account,
                defaults={"holder_name": holder, "daily_limit": Decimal(100_000_000)},
            )

    def _terminals(self, methods):
        for client_name, name, raw, integration, form, buttons, starting in TERMINALS:
            client, _ = Client.objects.get_or_create(name=client_name)
            terminal = Terminal.objects.filter(client=client, name=name).first()
            if terminal is None:
                terminal = terminal_create(client=client, name=name, webhook_secret=WEBHOOK_SECRET)
            terminal.integration_type = integration
            terminal.form_activated = form
            terminal.webhook_secret = WEBHOOK_SECRET
            terminal.sandbox = name in SANDBOX_TERMINALS
            terminal.save()
            button_for = {BUTTON_METHODS[b]: b for b in buttons}
            for method_name, method in methods.items():
                TerminalMethod.objects.update_or_create(
                    terminal=terminal,
                    method=method,
                    defaults={"enabled": True, "button_name": button_for.get(method_name)},
                )
            if not ApiKey.objects.filter(key_hash=hash_key(raw)).exists():
                api_key_issue(terminal=terminal, name="demo", raw=raw)
            if starting and not terminal.balance.transactions.exists():
                balance_credit(
                    terminal_id=terminal.pk, amount=starting, description="Initial deposit"
                )
            if (
                name == "Demo Shop"
                and not ApiKey.objects.filter(key_hash=hash_key("demo-revoked-key")).exists()
            ):
                key, _ = api_key_issue(
                    terminal=terminal, name="demo (revoked)", raw="demo-revoked-key"
                )
                api_key_revoke(key=key)

    def _operator(self):
        # Not a superuser: staff in the Operators group, which holds what operators need.
        call_command("operators_group", verbosity=0, stdout=StringIO())
        User = get_user_model()
        operator = User.objects.filter(username="operator").first()
        if operator is None:
            operator = User.objects.create_user(
                "operator", "operator@example.com", "operator-demo-password"
            )
        operator.is_staff, operator.is_superuser = True, False
        operator.save(update_fields=["is_staff", "is_superuser"])
        operator.groups.set(Group.objects.filter(name="Operators"))
