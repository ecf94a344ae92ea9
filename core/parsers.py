import json
from decimal import Decimal

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from .formats import NUL_MESSAGE, holds_nul


def _reject_constant(name):
    raise ValueError(f"{name} is not a valid JSON value")


class DecimalJSONParser(JSONParser):
    """JSON bodies with numbers parsed as Decimal: no float ever touches an amount.

    A NUL character is refused where a field is read (DRF's text fields refuse it),
    not here: a key the endpoint does not read is ignored whatever it holds."""

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
        return data


class CheckedMultiPartParser(MultiPartParser):
    """multipart/form-data whose file names hold no NUL (they are stored). Text fields
    are judged where they are read, like JSON's."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        names = [f.name for files in parsed.files.lists() for f in files[1]]
        if holds_nul(names):
            raise ParseError(NUL_MESSAGE)
        return parsed


class CheckedFormParser(FormParser):
    """Kept beside the multipart parser: a urlencoded body's fields are judged where
    they are read."""
