"""The trader's admin page: its working deposit and the newest rows of its ledger."""

from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from core.admin_pages import operator_money, operator_time
from finance.descriptions import shown_description
from finance.models import Balance, Transaction

LEDGER_ROWS = 20


def trader_balance_html(trader) -> str:
    balance = Balance.objects.filter(trader_id=trader.pk).first() if trader.pk else None
    if balance is None:
        return _("No deposit yet")
    return format_html(
        '<span data-testid="trader-balance">{}: <strong>{}</strong> · {}: <strong>{}</strong> · '
        "{}: <strong>{}</strong> {}</span>",
        _("Available"),
        operator_money(balance.available),
        _("Frozen"),
        operator_money(balance.frozen),
        _("Total"),
        operator_money(balance.total),
        "₽",
    )


def trader_ledger_html(trader) -> str:
    rows = (
        Transaction.objects.filter(balance__trader_id=trader.pk).order_by("-created_at", "-id")[
            :LEDGER_ROWS
        ]
        if trader.pk
        else []
    )
    body = format_html_join(
        "",
        '<tr data-testid="trader-ledger-row"><td>{}</td><td>{}</td><td>{}</td><td>{}</td>'
        "<td>{}</td><td>{}</td></tr>",
        (
            (
                operator_time(t.created_at),
                t.get_transaction_type_display(),
                operator_money(t.amount),
                operator_money(t.balance_after),
                shown_description(t.client_description),
                t.reference,
            )
            for t in rows
        ),
    )
    head = format_html(
        "<tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>",
        _("Time"),
        _("Type"),
        _("Amount"),
        _("Balance after"),
        _("Description"),
        _("Reference"),
    )
    return format_html('<table data-testid="trader-ledger">{}{}</table>', head, body)
