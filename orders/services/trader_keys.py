"""Trader API keys."""

from core.keys import generate_key

from ..models import TraderApiKey


def trader_key_issue(*, trader, name: str = "", raw: str | None = None):
    """A new trader key; the raw value is returned once and never stored."""
    raw = raw or generate_key("tk")
    key = TraderApiKey(trader=trader, name=name)
    key.set_key(raw)
    key.save()
    return key, raw
