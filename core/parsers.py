import json
from decimal import Decimal

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from .formats import NUL_MESSAGE, holds_nul, querydict_holds_nul


def _reject_constant(name):
    raise ValueError(f"{name} is not a valid JSON value")


class DecimalJSONParser(JSONParser):
    """JSON bodies with numbers parsed as Decimal: no float ever touches an amount."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            raw = stream.read().decode(encoding) if stream is not None else ""
            data = json.loads(raw, parse_float=Decimal, parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"Malformed JSON body: {exc}")
        except RecursionError:
            raise ParseError("Malformed JSON body: nested too deeply")
        if holds_nul(data):
            raise ParseError(NUL_MESSAGE)
        return data


class CheckedMultiPartParser(MultiPartParser):
    """multipart/form-data whose field names, values and file names hold no NUL."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        names = [f.name for files in parsed.files.lists() for f in files[1]]
        if querydict_holds_nul(parsed.data) or holds_nul(names) or holds_nul(list(parsed.files)):
            raise ParseError(NUL_MESSAGE)
        return parsed


class CheckedFormParser(FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if querydict_holds_nul(data):
            raise ParseError(NUL_MESSAGE)
        return data
