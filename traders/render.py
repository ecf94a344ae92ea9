"""The trader's own objects as its API gives them (section 18)."""

from core.money import money_str
from orders.models import Trader

from .selectors import RequisiteFigures, Stats


def _money(value):
    return money_str(value) if value is not None else None


def render_trader(trader: Trader) -> dict:
    return {"id": str(trader.pk), "name": trader.name, "sandbox": trader.sandbox}


def render_requisite(figures: RequisiteFigures) -> dict:
    requisite = figures.requisite
    method = requisite.method
    return {
        "id": str(requisite.pk),
        "method_id": str(method.pk),
        "method_name": method.name,
        "method_type": method.method_type,
        "nspk_code": method.nspk_code,
        "holder_name": requisite.holder_name,
        "account": requisite.account,
        "is_active": requisite.is_active,
        "disabled_reason": None if requisite.is_active else requisite.disabled_reason,
        "min_amount": _money(requisite.min_amount),
        "max_amount": _money(requisite.max_amount),
        "max_pending": requisite.max_pending,
        "daily_limit": _money(requisite.daily_limit),
        "pending": figures.pending,
        "turnover_today": money_str(figures.turnover_today),
        "auto_disable_after": requisite.auto_disable_after,
    }


def render_stats(stats: Stats) -> dict:
    return {
        "period": stats.period,
        "orders": stats.orders,
        "completed": stats.completed,
        "conversion": stats.conversion,
        "turnover": money_str(stats.turnover),
        "reward": money_str(stats.reward),
    }
