"""The trader itself, its requisites and its statistics."""

from decimal import Decimal

from ._base import Model
from .enums import MethodType, RequisiteDisabledReason, StatsPeriod


class Trader(Model):
    id: str
    name: str
    sandbox: bool


class TraderRequisite(Model):
    id: str
    method_id: str
    method_name: str
    method_type: MethodType
    nspk_code: str | None
    holder_name: str
    account: str
    is_active: bool
    disabled_reason: RequisiteDisabledReason | None
    min_amount: Decimal | None
    max_amount: Decimal | None
    max_pending: int | None
    daily_limit: Decimal
    pending: int
    turnover_today: Decimal
    auto_disable_after: int | None


class TraderStats(Model):
    period: StatsPeriod
    orders: int
    completed: int
    conversion: Decimal
    turnover: Decimal
    reward: Decimal
