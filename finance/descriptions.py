"""The service's own words on ledger rows, for people: a row keeps its description as
it was written (the API gives it back as it is), and a page of ours shows it in the
page's language. What a person typed (a settlement's comment) stays as it is."""

import re

from django.utils.translation import gettext as _

_WRITTEN = [
    (re.compile(r"^Initial deposit$"), lambda m: _("Initial deposit")),
    (re.compile(r"^Order (.+)$"), lambda m: _("Payment on order %(order)s") % {"order": m[1]}),
    (re.compile(r"^Buy (.+)$"), lambda m: _("Payment on order %(order)s") % {"order": m[1]}),
    (re.compile(r"^Payout (.+)$"), lambda m: _("Payout on order %(order)s") % {"order": m[1]}),
    (re.compile(r"^Sell (.+)$"), lambda m: _("Payout on order %(order)s") % {"order": m[1]}),
    (
        re.compile(r"^Dispute on order (.+)$"),
        lambda m: _("Dispute on order %(order)s") % {"order": m[1]},
    ),
    (
        re.compile(r"^Reward above fee (.+)$"),
        lambda m: _("Reward above the fee on order %(order)s") % {"order": m[1]},
    ),
    (re.compile(r"^Reward (.+)$"), lambda m: _("Reward for order %(order)s") % {"order": m[1]}),
    (re.compile(r"^Revenue (.+)$"), lambda m: _("Revenue on order %(order)s") % {"order": m[1]}),
]


def shown_description(text: str) -> str:
    for pattern, words in _WRITTEN:
        match = pattern.match(text or "")
        if match:
            return words(match)
    return text or ""
