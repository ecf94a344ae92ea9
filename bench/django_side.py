"""What the bench does inside Django, run in the server's environment as
`python -m bench.django_side COMMAND [ARGS]`; the last line printed is the answer.

  seed                          bench-only data; prints the Bench SBP method's id
  method-id [NAME]              the Bench SBP (or the named) method's id
  add-requisites METHOD TOTAL   requisites on METHOD up to TOTAL
  query-counts METHOD           SQL statements per request, as JSON
"""

import json
import sys
from decimal import Decimal

import django


def seed() -> str:
    """A bank method with ten requisites, and eight more terminals."""
    from finance.models import Client, FeeRange, PaymentMethod, Terminal, TerminalMethod
    from finance.services import api_key_issue, balance_credit, new_webhook_secret, terminal_create
    from orders.models import Requisite, Trader

    m = PaymentMethod.objects.create(name="Bench SBP", method_type="SBP", nspk_code="999000000001")
    FeeRange.objects.create(method=m, side="Buy", min_amount=100, max_amount=300000, fee=5)
    FeeRange.objects.create(
        method=m, side="Sell", min_amount=100, max_amount=300000, fee=3, fixed_fee=50
    )
    trader = Trader.objects.get(name="Trader One")
    Requisite.objects.bulk_create(
        [
            Requisite(trader=trader, method=m, holder_name="Bench", account=f"+7998{i:07d}")
            for i in range(10)
        ]
    )
    client = Client.objects.create(name="Bench Merchant")
    terminals = list(Terminal.objects.filter(name="Demo Shop"))
    for i in range(8):
        term = terminal_create(
            client=client, name=f"Bench {i}", webhook_secret=new_webhook_secret()
        )
        api_key_issue(terminal=term, raw=f"bench-key-{i}")
        terminals.append(term)
    for term in terminals:
        TerminalMethod.objects.get_or_create(terminal=term, method=m)
        for other in PaymentMethod.objects.exclude(pk=m.pk):
            TerminalMethod.objects.get_or_create(terminal=term, method=other)
        balance_credit(terminal_id=term.pk, amount=Decimal("1000000000"), description="bench")
    return str(m.pk)


def method_id(name: str = "Bench SBP") -> str:
    from finance.models import PaymentMethod

    return str(PaymentMethod.objects.get(name=name).pk)


def add_requisites(method: str, total: str) -> str:
    from finance.models import PaymentMethod
    from orders.models import Requisite, Trader

    m = PaymentMethod.objects.get(pk=method)
    trader = Trader.objects.get(name="Trader Two")
    n = Requisite.objects.filter(method=m).count()
    Requisite.objects.bulk_create(
        [
            Requisite(trader=trader, method=m, holder_name="B", account=f"+7997{i:07d}")
            for i in range(n, int(total))
        ],
        batch_size=2000,
    )
    return str(int(total))


def query_counts(method: str) -> str:
    from django.db import connection
    from django.test import Client

    c = Client()
    h = {"HTTP_X_API_KEY": "demo-shop-key"}
    body = {
        "client_order_id": "q",
        "order_side": "Buy",
        "payment_method_id": method,
        "amount": "99999.99",
    }
    order = c.post("/api/v1/order/", body, content_type="application/json", **h).json()
    calls = {
        "ping": lambda: c.get("/api/v1/ping", **h),
        "balance": lambda: c.get("/api/v1/finance/balance", **h),
        "list": lambda: c.get("/api/v1/order/", **h),
        "lookup": lambda: c.get("/api/v1/order/" + order["id"], **h),
        "search": lambda: c.get("/api/v1/order/search-by-client-order-id", {"id": "q"}, **h),
        "create": lambda: c.post(
            "/api/v1/order/",
            dict(body, amount="99998.99"),
            content_type="application/json",
            **h,
        ),
    }
    counts = {}
    for name, call in calls.items():
        seen = []

        def count(execute, sql, params, many, context, seen=seen):
            seen.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            status = call().status_code
        if status >= 300:
            raise SystemExit(f"{name}: {status}")
        counts[name] = len([q for q in seen if "SAVEPOINT" not in q])
    return json.dumps(counts)


COMMANDS = {
    "seed": seed,
    "method-id": method_id,
    "add-requisites": add_requisites,
    "query-counts": query_counts,
}

if __name__ == "__main__":
    django.setup()
    command, *args = sys.argv[1:]
    sys.stdout.write(COMMANDS[command](*args) + "\n")
