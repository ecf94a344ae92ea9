"""Text fields and their schema agree on any text, read as JSON Schema tools read
the schema (jsonschema_rs, the validator schemathesis judges by): blank is told by
the same whitespace DRF trims, and `maxLength` counts the text as sent."""

import jsonschema_rs
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from core.fields import StrictCharField, TrimmedTextField
from core.schema import NOT_BLANK_PATTERN

TEXT = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12),
    st.text(alphabet=st.sampled_from(" \t\n\x1c\x1f\x85\xa0\u2007\u3000\ufeffa"), max_size=12),
)


def accepts(field, value) -> bool:
    try:
        field.run_validation(value)
    except serializers.ValidationError:
        return False
    return True


def test_the_blank_patterns_whitespace_is_what_python_trims():
    pattern = jsonschema_rs.validator_for({"type": "string", "pattern": NOT_BLANK_PATTERN})
    for code in range(0x3100):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF or char == "\x00":
            continue
        assert pattern.is_valid(char) == (not char.isspace()), hex(code)


@settings(max_examples=1000, deadline=None)
@given(TEXT)
def test_trimmed_text_and_its_schema_agree(value):
    field = TrimmedTextField(max_length=8, strict=True)
    schema = jsonschema_rs.validator_for(
        {"type": "string", "maxLength": 8, "pattern": NOT_BLANK_PATTERN}
    )
    assert accepts(field, value) == schema.is_valid(value), repr(value)


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_a_strict_text_may_be_blank_within_its_length_as_sent_without_nul(value):
    field = StrictCharField(max_length=8, allow_blank=True)
    assert accepts(field, value) == (len(value) <= 8 and "\x00" not in value), repr(value)


def test_a_strict_text_takes_only_a_json_string():
    field = StrictCharField(max_length=8)
    for value in (5, 1.5, True, ["a"], {"a": 1}):
        assert not accepts(field, value), value
    assert accepts(TrimmedTextField(max_length=8), 5)  # the merchants' fields, as before
    assert not accepts(TrimmedTextField(max_length=8, strict=True), 5)
