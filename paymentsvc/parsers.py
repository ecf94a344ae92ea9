import json
from decimal import Decimal

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def _reject_constant(name):
    raise ValueError(f"{name} is not a valid JSON value")


class DecimalJSONParser(JSONParser):
    """JSON bodies with numbers parsed as Decimal: no float ever touches an amount."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            raw = stream.read().decode(encoding) if stream is not None else ""
            return json.loads(raw, parse_float=Decimal, parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"Malformed JSON body: {exc}")
        except RecursionError:
            raise ParseError("Malformed JSON body: nested too deeply")
