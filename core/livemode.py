"""Live or test mode (docs/sandbox.md), read one way everywhere: a terminal answers
`livemode` (finance: not its sandbox flag), an order keeps the `livemode` it was
created with, and whatever has no such attribute is live. In core so that metrics
and the webhook outbox, which cannot import finance, still give the same answer."""


def livemode_of(obj) -> bool:
    """`obj.livemode` (an order's stored value, a terminal's or trader's flag);
    True for anything that does not say."""
    return bool(getattr(obj, "livemode", True))
