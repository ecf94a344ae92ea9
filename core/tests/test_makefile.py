"""The Makefile says what it offers: every name declared .PHONY is a target."""

import re
from pathlib import Path

MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"


def test_every_phony_name_is_a_target():
    text = MAKEFILE.read_text()
    phony = {name for line in re.findall(r"^\.PHONY:(.*)$", text, re.M) for name in line.split()}
    targets = set(re.findall(r"^([A-Za-z][\w-]*):(?!=)", text, re.M))
    assert phony, "no .PHONY line found"
    assert phony - targets == set()
