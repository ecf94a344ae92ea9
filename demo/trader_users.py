"""The demo traders' cabinet users (traders.md section 22): `trader1` to `trader3`
for traders 1 to 3, `trader4` for trader 4 when the data set has it, and
`sandbox-trader`, all with the password `trader-demo-password`. Idempotent."""

from django.contrib.auth import get_user_model

from core.keys import hash_key
from orders.models import Trader, TraderApiKey

PASSWORD = "trader-demo-password"

# user name -> the demo key its trader holds
TRADER_USERS = {
    "trader1": "demo-trader-1-key",
    "trader2": "demo-trader-2-key",
    "trader3": "demo-trader-3-key",
    "trader4": "demo-trader-4-key",
    "sandbox-trader": "demo-sandbox-trader-key",
}


def seed_trader_users() -> None:
    User = get_user_model()
    for username, key in TRADER_USERS.items():
        trader = Trader.objects.filter(
            pk__in=TraderApiKey.objects.filter(key_hash=hash_key(key)).values("trader_id")
        ).first()
        if trader is None:
            continue  # trader 4 only where the data set has it
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User.objects.create_user(username, password=PASSWORD)
        if user.is_staff or user.is_superuser:
            user.is_staff = user.is_superuser = False
            user.save(update_fields=["is_staff", "is_superuser"])
        if trader.user_id != user.pk:
            Trader.objects.filter(user=user).exclude(pk=trader.pk).update(user=None)
            trader.user = user
            trader.save(update_fields=["user"])
