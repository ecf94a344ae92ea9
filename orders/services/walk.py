"""One slice of the matcher's walk along a method's ring of requisites: the statement
that reads it and the candidates it gives (see matching._Chunks for the walk itself)."""

import functools
import uuid
from datetime import datetime
from decimal import Decimal

from core.db import db_now_sql, parse_clock
from core.money import quantize_money
from core.prepared import current, opaque, prepared_cursor
from finance.models import AccountKind, Balance, Side

from ..models import Order, OrderStatus, Requisite, RequisiteLoad, Trader
from . import load

CHUNK = 32  # the first walk's length, and the usual one


def slice_sql(
    *,
    methods: dict,
    side: str,
    amounts: list[Decimal],
    arcs: list,
    sandbox: bool,
    width: int = CHUNK,
    deposit_floor: Decimal | None = None,
) -> tuple[str, list]:
    """The slice's statement and its parameters (see `read_slice`).

    The walk comes first and on its own: for each method (an aggregate's several) and
    arc, its active requisites in id order through the partial (method, id) index,
    limited to `width`; nothing else is in that subquery, so no plan can read the
    method's whole ring and sort it (with the trader's and deposit's joins inside the
    limit, a plan that expected them to keep few rows did just that). The width is
    written into the text, so each width is its own prepared statement with a plan
    made for it.

    The walked rows are then judged: a live (or sandbox) active trader, for a Buy a
    deposit that covers the smallest candidate amount, and the requisite's own range
    (min_amount, max_amount) letting some candidate in. Rows that fail are dropped,
    except the walk's last, which tells the caller where the next walk begins; `ok`
    says which is which and `walked` how many the walk read.

    "Holds this amount" is a scalar subquery with LIMIT 1, so it stays a probe per
    requisite and amount (a SubPlan): an EXISTS could be turned into a semi-join that
    reads every Pending order of the amount, and its cost would grow with them. Its
    equality on both columns and its condition written as literals match the partial
    unique index, which answers it without the table (an index-only probe). It runs
    only for the rows kept. `deposit_floor` lowers the deposit bar (availability
    counting overdue Buys' frozen money as free).
    """
    # The connection itself, not the `connection` proxy: an aggregate's walk binds
    # two dozen ids, and each read through the proxy looked the connection up again.
    db = current()
    key = Requisite._meta.pk
    money = Order._meta.get_field("amount")

    def db_uuid(value):
        return key.get_db_prep_value(value, db)

    def db_money(value):
        return money.get_db_prep_value(value, db)

    sql = _slice_text(
        db.vendor,
        side,
        len(amounts),
        len(methods),
        tuple(condition for condition, _ in arcs),
        int(width),
    )
    low, high = db_money(min(amounts)), db_money(max(amounts))
    params = [RequisiteLoad._meta.get_field("day").get_db_prep_value(load.utc_day(), db)]
    if side == Side.BUY:
        params += map(db_money, amounts)
    params += [high, low]
    for _condition, values in arcs:
        for pk in methods:
            params += [db_uuid(pk), *map(db_uuid, values)]
    params.append(sandbox)
    if side == Side.BUY:
        params.append(low if deposit_floor is None else db_money(deposit_floor))
    return sql, params


@functools.lru_cache(maxsize=256)
def _slice_text(
    vendor: str, side: str, amounts: int, methods: int, conditions: tuple, width: int
) -> str:
    """The slice's text for its shape (built once: it took longer than the slice's
    run), its values in the order slice_sql lists them."""
    # Read through subqueries, the values that move the estimates (a method's or a
    # trader kind's figures, a deposit bar) leave a plan made with them no cheaper than
    # the generic plan, which the prepared slice then keeps (core.prepared.opaque).
    uuid_value, money_value, flag_value = (
        opaque(sql_type, vendor=vendor) for sql_type in ("uuid", "numeric", "boolean")
    )
    holds = ""
    if side == Side.BUY:
        for k in range(amounts):
            holds += (
                f", CASE WHEN s.ok THEN (SELECT 1 FROM {ORDERS} o WHERE o.requisite_id = s.id"
                f" AND o.amount = %s AND o.status = '{OrderStatus.PENDING.value}'"
                f" AND o.side = '{Side.BUY.value}' LIMIT 1) IS NOT NULL END AS holds_{k}"
            )
    arc_selects = []
    for number, condition in enumerate(conditions):
        walks = [
            f"SELECT * FROM (SELECT {_COLUMNS} FROM {REQUISITES} e"
            f" WHERE e.method_id = {uuid_value} AND e.is_active"
            f" AND {condition.replace('%s', uuid_value)}"
            f" ORDER BY e.id LIMIT {width}) m{k}"
            for k in range(methods)
        ]
        arc_selects.append(
            f"SELECT w.*, {number} AS arc FROM ({' UNION ALL '.join(walks)}) w"
            if len(walks) == 1
            else f"SELECT w.*, {number} AS arc FROM"
            f" (SELECT * FROM ({' UNION ALL '.join(walks)}) u ORDER BY u.id LIMIT {width}) w"
        )
    if side == Side.BUY:
        deposit = (
            f" LEFT JOIN {BALANCES} b ON b.trader_id = t.id"
            f" AND b.kind = '{AccountKind.TRADER.value}' AND b.available >= {money_value}"
        )
        available, covered = "b.available", " AND b.id IS NOT NULL"
    else:
        deposit, available, covered = "", "NULL", ""
    return f"""
        SELECT s.*, l.requisite_id IS NOT NULL AS has_load,
          COALESCE(l.pending, 0) AS pending,
          CASE WHEN l.day = %s THEN l.turnover ELSE 0 END AS turnover,
          CASE WHEN s.place = s.walked THEN {db_now_sql(vendor)} END AS clock
          {holds}
        FROM (
          SELECT w.*, {available} AS available,
            t.id IS NOT NULL{covered}
              AND (w.min_amount IS NULL OR w.min_amount <= {money_value})
              AND (w.max_amount IS NULL OR w.max_amount >= {money_value}) AS ok,
            row_number() OVER (ORDER BY w.arc, w.id) AS place,
            count(*) OVER () AS walked
          FROM (SELECT * FROM ({" UNION ALL ".join(arc_selects)}) a
                ORDER BY a.arc, a.id LIMIT {width}) w
          LEFT JOIN {TRADERS} t ON t.id = w.trader_id AND t.is_active
            AND t.sandbox = {flag_value}
          {deposit}
        ) s
        LEFT JOIN {LOADS} l ON l.requisite_id = s.id
        WHERE s.ok OR s.place = s.walked
        ORDER BY s.arc, s.id
    """


def read_slice(
    *,
    methods: dict,
    side: str,
    amounts: list[Decimal],
    arcs: list,
    sandbox: bool,
    width: int = CHUNK,
    write=True,
    freed=None,  # a freed.Freed (availability): overdue holders counted as free
) -> tuple[list["Candidate"], int]:
    """The next `width` active requisites of the methods along `arcs` (id ranges) in
    order, and how many there were: those that can serve the order (`ok`: of sandbox
    traders for a sandbox order, of live ones for a live order, never across) each with
    its Pending count and today's turnover as its RequisiteLoad row has them and, for a
    Buy, which candidate amounts it holds and its trader's available deposit; and the
    walk's last row, kept or not.

    Written in SQL because the ORM spent more time building this statement than the
    database spends running it. Nothing here grows with a method's requisites or a
    requisite's day: the walk reads at most `width` index entries per method and arc,
    the figures are one row, and "holds this amount" is one probe of the partial unique
    index on Pending Buy (requisite, amount) (its condition written as literals so the
    planner can match it). These figures only order and thin out the candidates; the
    conditional UPDATE of the load row and the INSERT against the unique index decide.
    A requisite kept without a load row yet gets one, counted from its orders.
    """
    floor = None if freed is None else freed.deposit_floor(min(amounts))
    sql, params = slice_sql(
        methods=methods,
        side=side,
        amounts=amounts,
        arcs=arcs,
        sandbox=sandbox,
        width=width,
        deposit_floor=floor,
    )
    # Planning the slice cost more than running it: prepared once per connection.
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        rows = [Candidate(values, methods, amounts) for values in cursor.fetchall()]
    walked = rows[0].walked if rows else 0
    if rows:
        # The database's clock as the slice read it (SQLite: its text), read once: the
        # walk's last row, always among those given, carries it.
        clock = rows[-1].clock
        clock = clock if isinstance(clock, datetime) else parse_clock(clock)
        for row in rows:
            row.clock = clock
    if freed is not None:
        for row in rows:
            if row.ok:
                freed.apply(row)
    missing = [row.pk for row in rows if row.ok and not row.has_load]
    if missing and write:  # availability (write off) counts them as empty
        load.requisite_load_ensure(requisite_ids=missing)
    return rows, walked


# What placement needs of a requisite; read as plain columns (building model instances
# of the requisite and its trader was most of a slice's Python time).
_FIELDS = (
    "id",
    "method_id",
    "trader_id",
    "holder_name",
    "account",
    "daily_limit",
    "max_pending",
    "min_amount",
    "max_amount",
)
_COLUMNS = ", ".join(f"e.{name}" for name in _FIELDS)


def _uuid(value) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(value)  # SQLite: hex text


def _money(value) -> Decimal:
    # PostgreSQL gives Decimal; SQLite an int or float of a 2-place number.
    return value if isinstance(value, Decimal) else quantize_money(Decimal(str(value or 0)))


class Candidate:
    """A requisite as placement uses it: what the order copies, its caps and figures."""

    __slots__ = (
        "pk",
        *_FIELDS[1:],
        "arc",
        "available",
        "ok",
        "walked",
        "has_load",
        "pending",
        "turnover",
        "clock",
        "method",
        "busy",
    )

    def __init__(self, values: tuple, methods: dict, amounts: list[Decimal]):
        (pk, method_id, trader_id, self.holder_name, self.account, daily_limit) = values[:6]
        self.max_pending, low, high, self.arc, available = values[6:11]
        ok, _place, self.walked, self.has_load, self.pending, turnover, clock = values[11:18]
        self.ok = bool(ok)
        self.pk, self.method_id, self.trader_id = _uuid(pk), _uuid(method_id), _uuid(trader_id)
        self.daily_limit, self.turnover = _money(daily_limit), _money(turnover)
        self.min_amount = None if low is None else _money(low)
        self.max_amount = None if high is None else _money(high)
        self.available = None if available is None else _money(available)  # a Buy's only
        self.method = methods[self.method_id]  # already loaded
        self.busy = {amount for amount, held in zip(amounts, values[18:], strict=False) if held}
        self.clock = clock  # the walk's last row's; read_slice gives it to every row

    def takes(self, amount: Decimal) -> bool:
        """Whether this requisite's own range and (for a Buy) its trader's deposit as
        read let `amount` in; the caps and the deposit are decided again by the
        conditional UPDATE."""
        if self.min_amount is not None and amount < self.min_amount:
            return False
        if self.max_amount is not None and amount > self.max_amount:
            return False
        return self.available is None or self.available >= amount


ORDERS = Order._meta.db_table
REQUISITES = Requisite._meta.db_table
TRADERS = Trader._meta.db_table
LOADS = RequisiteLoad._meta.db_table
BALANCES = Balance._meta.db_table
