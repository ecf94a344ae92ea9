"""A version per trader that changes whenever one of its orders does (created, closed,
a receipt attached), kept in the shared cache. The orders page asks every few seconds
with `If-None-Match`; while the version stands the answer is a 304 made without
reading the orders table.

The version moves after the change commits (post_save of Order and Receipt, on
commit): it is set to a new random number, one plain write on every change (a
counter's raise took a pipeline of two commands). A page only compares the version
it holds with the current one, for equality, and two random 62-bit numbers are the
same once in 2**62. A cache that lost the key starts one from the clock.
"""

import random
import time

from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.db import transaction
from django.db.models.signals import post_save

from orders.models import Order, Receipt


def _key(trader_id) -> str:
    return f"trader:orders-version:{trader_id}"


def orders_version(trader_id) -> str:
    key = _key(trader_id)
    version = cache.get(key)
    if version is None:
        cache.add(key, time.time_ns(), timeout=None)
        version = cache.get(key)
    return str(version)


def orders_changed(trader_id) -> None:
    backend = caches[DEFAULT_CACHE_ALIAS]
    version = random.getrandbits(62)
    keep = getattr(backend, "number_keep", None)  # core.cache's backends
    if keep is None:
        backend.set(_key(trader_id), version, timeout=None)
    else:
        keep(_key(trader_id), version)


def _order_saved(sender, instance: Order, **kwargs):
    if instance.trader_id is not None:
        trader_id = instance.trader_id
        transaction.on_commit(lambda: orders_changed(trader_id))


def _receipt_saved(sender, instance: Receipt, created: bool, **kwargs):
    if created:
        order_id = instance.order_id

        def changed():
            trader_id = (
                Order.objects.filter(pk=order_id).values_list("trader_id", flat=True).first()
            )
            if trader_id is not None:
                orders_changed(trader_id)

        transaction.on_commit(changed)


def connect() -> None:
    post_save.connect(_order_saved, sender=Order, dispatch_uid="traders-orders-version")
    post_save.connect(_receipt_saved, sender=Receipt, dispatch_uid="traders-receipts-version")
