"""The database's clock moving on, for tests. Expiry, the anti-fraud window, the
lists' windows and the daily turnover follow the database's time, which a test
cannot move; moving the orders' own moments back by the same span is the same thing
to every rule that reads them. (time_machine moves only the web process's clock.)"""

from datetime import timedelta

from django.db.models import F

from orders.models import Order


def orders_age(delta: timedelta, **filters) -> int:
    """As if `delta` had passed on the database's clock since these orders (every
    order unless filtered) were created: their created_at and expires_at move back."""
    return Order.objects.filter(**filters).update(
        created_at=F("created_at") - delta, expires_at=F("expires_at") - delta
    )
