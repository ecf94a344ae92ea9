"""The traders' key space, registered with core's X-API-Key authentication."""

from .models import TraderApiKey


def trader_key_for_digest(digest: str) -> TraderApiKey | None:
    """The trader key with this digest, unless its trader is deactivated."""
    key = TraderApiKey.objects.select_related("trader").filter(key_hash=digest).first()
    if key is not None and not key.trader.is_active:
        return None
    return key
