"""JSON rendered once: a value whose text was made for a purpose of its own (the exact
bytes a webhook signs and sends) is written to its JSON column from that same text,
not encoded a second time by the column's encoder.

    payload = RenderedJSON({...})
    payload.text = json.dumps(payload, ...)       # the body, as sent
    Model(payload=payload, body=payload.text)      # the column takes the text

A JSON column whose `encoder` is `KeptTextEncoder` writes a `RenderedJSON` as its
`text` and anything else as `json.dumps` would. The text must be the dict's own JSON:
change the dict and its text is stale (`RenderedJSON` is written only once, built
just before).
"""

import json


class RenderedJSON(dict):
    """A dict beside its JSON text (`text`)."""

    __slots__ = ("text",)


class KeptTextEncoder(json.JSONEncoder):
    """json.dumps' encoder, which gives a `RenderedJSON` its kept text."""

    def encode(self, o):
        if type(o) is RenderedJSON:
            return o.text
        return super().encode(o)
