"""The bench database: demo data plus bench-only rows, history loaded in SQL."""

import subprocess

from .config import DB
from .processes import django_side, manage


def setup():
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", "-U", "postgres", DB], check=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", DB], check=True)
    manage("migrate", "--noinput")
    manage("seed_demo", "--force")
    # Bench-only data: a bank method with ten requisites, and eight more terminals.
    django_side("seed")
    analyze()


def analyze() -> None:
    """Fresh planner statistics and visibility map, as a live database has them
    (autovacuum would get there too, but not within a short run): without the map an
    index-only COUNT visits the heap for every row, as no settled table makes it."""
    psql("VACUUM ANALYZE")


PSQL = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-tA", "-v", "ON_ERROR_STOP=1"]


def psql(sql: str) -> str:
    """Runs `sql` on the bench database; what it printed (unaligned, no headers)."""
    done = subprocess.run([*PSQL, "-d", DB, "-c", sql], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"psql: {done.stderr.strip()}")
    return done.stdout.strip()


def bulk_orders(total: int) -> None:
    """Historic Completed orders for Demo Shop, spread over a year, straight in SQL."""
    sql = f"""
    INSERT INTO orders_order (id, terminal_id, client_order_id, currency, side, method_id, initial_method_id,
      status, requested_amount, amount, fee, fixed_fee, fee_amount, trader_reward_percent, holder_name, holder_account,
      event_sequence, created_at, updated_at, expires_at, closed_by, receipts_count, livemode)
    SELECT gen_random_uuid(), t.id, 'hist-' || g, 'RUB', 'Buy', m.id, m.id, 'Completed', 1000, 1000 + (g % 5000),
      5, 0, 50, 2.5, 'H', '+70000000000', 2, now() - (g % 525600) * interval '1 minute' - interval '1 hour',
      now() - (g % 525600) * interval '1 minute', now(), 'bench', 0, true
    FROM generate_series((SELECT count(*) FROM orders_order) + 1, {total}) g,
      (SELECT id FROM finance_terminal WHERE name = 'Demo Shop') t,
      (SELECT id FROM finance_paymentmethod WHERE name = 'Sberbank SBP') m;
    """
    psql(sql)
    psql("VACUUM ANALYZE orders_order")  # on its own: VACUUM runs outside a transaction


def orders_size() -> dict:
    """The orders table on disk, after the bulk loads: how many orders it holds, the
    bytes of its rows (with TOAST) and of its indexes (docs/scale.md's bytes per order).
    The bulk-loaded rows are narrower than live ones (short holder names, no payment
    link or webhook URL), so a live table takes somewhat more."""
    orders, table, indexes = psql(
        "SELECT count(*), pg_table_size('orders_order'), pg_indexes_size('orders_order') "
        "FROM orders_order"
    ).split("|")
    return {"orders": int(orders), "table": int(table), "indexes": int(indexes)}


def settle_orders() -> None:
    """Close the Pending orders earlier points left (the ledger is not kept right: the
    bench balances are far larger than any run needs), and move them out of today: every
    creation point starts as a live system does, where orders are paid or expire within
    minutes, instead of on requisites already holding the previous points' orders."""
    sql = """
    UPDATE orders_order SET status = 'Completed', created_at = created_at - interval '2 days'
    WHERE status = 'Pending' AND client_order_id <> 'lookup-me';
    """
    psql(sql)
    loads_recount()
    # What autovacuum does on a live system (this machine's server runs without it):
    # the rows every creation updates (a trader's balance, a requisite's load row) and
    # the orders just settled are vacuumed, and their statistics follow the tables'
    # growth. Without it a plan made while the orders table was nearly empty (a
    # sequential read of it for the "holds this amount" probe) stays in a connection's
    # prepared slice until the connection is renewed (CONN_MAX_AGE), and creation
    # slows round after round.
    psql("VACUUM ANALYZE orders_order, orders_requisiteload, finance_balance")


def loads_recount() -> None:
    """Every requisite's load row counted afresh, as the bench's own SQL writes above
    bypass the services that keep it (orders.services.load)."""
    psql(
        """
    UPDATE orders_requisiteload l SET
      pending = (SELECT count(*) FROM orders_order o
                 WHERE o.requisite_id = l.requisite_id AND o.status = 'Pending'),
      turnover = COALESCE((SELECT sum(o.amount) FROM orders_order o
                 WHERE o.requisite_id = l.requisite_id
                   AND o.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                   AND o.status IN ('Pending', 'Completed')), 0),
      day = (now() AT TIME ZONE 'UTC')::date;
    """
    )


# The columns of an order on a requisite, as the bench's SQL loads write them.
INSERT_REQUISITE_ORDERS = """INSERT INTO orders_order (id, terminal_id, client_order_id,
      currency, side, method_id, initial_method_id, requisite_id, trader_id, status,
      requested_amount, amount, fee, fixed_fee, fee_amount, trader_reward_percent,
      holder_name, holder_account, event_sequence, created_at, updated_at, expires_at,
      closed_by, receipts_count, livemode)"""


def fill_requisite_day(method: str, per_requisite: int) -> None:
    """`per_requisite` Completed orders created today (UTC) on each requisite of the
    method: a requisite late in a busy day."""
    psql(
        f"""
    {INSERT_REQUISITE_ORDERS}
    SELECT gen_random_uuid(), t.id, 'day-' || g, 'RUB', 'Buy', r.method_id, r.method_id, r.id,
      r.trader_id, 'Completed', 1000, 100 + (g % 5000), 5, 0, 50, 2.5, 'H', '+70000000000', 2,
      date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        + (g % 3600) * interval '1 second',
      now(), now(), 'bench', 0, true
    FROM generate_series(1, {per_requisite}) g,
      (SELECT id FROM finance_terminal WHERE name = 'Demo Shop') t,
      (SELECT r.* FROM orders_requisite r JOIN finance_paymentmethod m ON m.id = r.method_id
       WHERE m.name = '{method}') r;
    """
    )
    loads_recount()
    analyze()


def fill_terminal_window(terminal: str, total: int) -> None:
    """`total` Completed orders for `terminal`, all inside the list's default 24-hour
    window (a busy terminal's day), with client_order_ids `win-1` ... `win-<total>`."""
    psql(
        f"""
    INSERT INTO orders_order (id, terminal_id, client_order_id, currency, side, method_id,
      initial_method_id, status, requested_amount, amount, fee, fixed_fee, fee_amount, trader_reward_percent,
      holder_name, holder_account, event_sequence, created_at, updated_at, expires_at,
      closed_by, receipts_count, livemode)
    SELECT gen_random_uuid(), t.id, 'win-' || g, 'RUB', 'Buy', m.id, m.id, 'Completed', 1000,
      1000 + (g % 5000), 5, 0, 50, 2.5, 'H', '+70000000000', 2,
      now() - interval '1 hour' - (g % 79200) * interval '1 second', now(), now(), 'bench', 0,
      true
    FROM generate_series(1, {total}) g,
      (SELECT id FROM finance_terminal WHERE name = '{terminal}') t,
      (SELECT id FROM finance_paymentmethod WHERE name = 'Sberbank SBP') m;
    """
    )
    psql("VACUUM ANALYZE orders_order")


def bulk_events(terminal: str, total: int) -> None:
    """The terminal's event log up to `total` events, straight in SQL: copies of its
    first real event (same type, payload and body: rows as wide as real ones) for new
    orders, spread over a year up to an hour ago. Event and order ids count up (in the
    ids' own shapes) rather than being random: each index then takes its new entries
    at one end, which halves the load's time, and no read measured here depends on
    where in an index an entry sits."""
    of_terminal = f"(SELECT id FROM finance_terminal WHERE name = '{terminal}')"
    psql(
        f"""
    INSERT INTO webhooks_webhookevent (id, terminal_id, order_id, type, sequence, actor,
      livemode, payload, body, created_at)
    SELECT 'msg_b' || lpad(to_hex(g), 31, '0'), e.terminal_id,
      ('b' || lpad(to_hex(g), 31, '0'))::uuid, e.type, 1, e.actor, e.livemode, e.payload,
      e.body, now() - interval '1 hour' - g * (interval '365 days' / {total})
    FROM generate_series(
        (SELECT count(*) FROM webhooks_webhookevent WHERE terminal_id = {of_terminal}) + 1,
        {total}) g,
      (SELECT * FROM webhooks_webhookevent WHERE terminal_id = {of_terminal}
       ORDER BY created_at LIMIT 1) e;
    """
    )
    psql("VACUUM ANALYZE webhooks_webhookevent")


def add_requisites(method_id: str, total: int) -> None:
    django_side("add-requisites", method_id, str(total))
    analyze()
