from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from core.db import db_now
from core.formats import parse_uuid
from finance.models import Terminal

from . import charts
from .selectors import DEFAULT_PERIOD, PERIODS, dashboard_get


@staff_member_required
def dashboard(request):
    period = request.GET.get("period") or DEFAULT_PERIOD
    terminal_id = request.GET.get("terminal") or ""
    errors = []
    if period not in PERIODS:
        errors.append(
            _("Unknown period {period}: pick 24h, 7d or 30d.").format(period=repr(period[:20]))
        )
        period = DEFAULT_PERIOD
    terminal = None
    if terminal_id:
        uuid = parse_uuid(terminal_id)
        terminal = Terminal.objects.filter(pk=uuid).first() if uuid else None
        if terminal is None:
            errors.append(_("No terminal has that id; showing every terminal."))
    # The database's time, as the API's shown statuses and the orders' created_at use.
    board = dashboard_get(period=period, terminal=terminal, now=db_now())
    context = {
        **admin.site.each_context(request),
        "title": _("Dashboard"),
        "board": board,
        "period": period,
        "periods": list(PERIODS),
        "terminal": terminal,
        "terminals": Terminal.objects.order_by("name").only("id", "name"),
        "errors": errors,
        "chart_per_hour": charts.orders_per_hour(board.per_hour, since=board.since, now=board.now),
        "chart_per_method": charts.conversion_per_method(board.per_method),
        "chart_traders": charts.trader_load(board.per_trader),
    }
    return TemplateResponse(
        request, "operators/dashboard.html", context, status=400 if errors else 200
    )
