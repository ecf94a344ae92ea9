"""The http(s) URLs the service takes are exactly those its schema's pattern
describes (core.formats.HTTP_URL_PATTERN), read the way JSON Schema tools read it
(jsonschema_rs, the validator schemathesis judges by), and each is a URL a delivery or
a browser can use."""

import re
from urllib.parse import urlsplit

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.formats import HTTP_URL_PATTERN, http_url_problem

# Any character a JSON text carries as UTF-8 (no lone surrogate, which the validator
# cannot take either).
CHARACTERS = st.characters(exclude_categories=["Cs"])
URLS = st.from_regex(HTTP_URL_PATTERN, fullmatch=True, alphabet=CHARACTERS)
SCHEMA = jsonschema_rs.validator_for({"type": "string", "pattern": HTTP_URL_PATTERN})


def taken(value: str) -> bool:
    return http_url_problem(value, max_length=10_000) is None


@settings(max_examples=500, deadline=None)
@given(URLS)
def test_every_url_of_the_pattern_is_taken_and_usable(url):
    assert taken(url), url
    assert SCHEMA.is_valid(url), url
    parts = urlsplit(url)
    assert parts.scheme in ("http", "https")
    assert parts.hostname and "@" not in parts.hostname
    assert parts.port is None or 0 <= parts.port <= 65535
    assert not any(c.isspace() for c in url)


# Near misses: a URL of the pattern with a character put in or taken out, anywhere.
near_misses = st.tuples(
    URLS,
    st.integers(min_value=0),
    CHARACTERS,
    st.booleans(),
).map(
    lambda t: (
        t[0][: t[1] % (len(t[0]) + 1)] + t[2] + t[0][t[1] % (len(t[0]) + 1) :]
        if t[3]
        else t[0][: t[1] % len(t[0])] + t[0][t[1] % len(t[0]) + 1 :]
    )
)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(st.text(alphabet=CHARACTERS), near_misses))
def test_the_service_and_the_schema_agree_on_any_text(text):
    assert taken(text) == SCHEMA.is_valid(text), text


@pytest.mark.parametrize(
    "url",
    [
        "Ed:",
        "a:b",
        "//a.example",
        "javascript:alert(1)",
        "http://",
        "http://a b",
        " http://a.example",
        "http://a.example ",
        "http://a.example\n",
        "http://a.example/\u0085",
        "http://a.example*",
        "http://a.example:65536",
        "http://a.example:",
        "http://us er@a.example",
        "http://a@b@a.example",
        "http://[::1]/",
        "http://-a.example",
        "https://店.example/",
        "ftp://a.example",
    ],
)
def test_what_the_pattern_leaves_out_is_refused(url):
    assert not SCHEMA.is_valid(url)
    assert http_url_problem(url, max_length=2048) == "Must be a valid http(s) URL"


@pytest.mark.parametrize(
    "url",
    [
        "http://a",
        "HTTPS://shop.example.com:8443/return?x=1#top",
        "http://127.0.0.1:65535/hooks",
        "https://xn--80aa0adtfkc.xn--p1ai/оплата?q=%20",
        "http://receiver_1:8000/hook",
        "https://магазин.рф/оплата",
        "http://merchant:s%40cret@127.0.0.1:8000/hooks",
    ],
)
def test_what_the_pattern_describes_is_taken(url):
    assert SCHEMA.is_valid(url)
    assert re.fullmatch(HTTP_URL_PATTERN, url)
    assert http_url_problem(url, max_length=2048) is None
