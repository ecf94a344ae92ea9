"""`make lint`: no module of the service or its client grows past MAX_LINES lines.

Tests, migrations and conftest files are left out: they grow with what they check. A
module that grows past the limit is split by concern (see docs/development.md)."""

import subprocess
import sys

MAX_LINES = 400


def oversized() -> list[tuple[str, int]]:
    tracked = subprocess.run(
        ["git", "ls-files", "*.py"], capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for path in tracked:
        parts = path.split("/")
        if "tests" in parts or "migrations" in parts or parts[-1] == "conftest.py":
            continue
        with open(path, encoding="utf-8") as module:
            lines = sum(1 for _ in module)
        if lines > MAX_LINES:
            found.append((path, lines))
    return found


if __name__ == "__main__":
    problems = oversized()
    for path, lines in problems:
        sys.stdout.write(f"{path}: {lines} lines (at most {MAX_LINES}); split it by concern\n")
    sys.exit(1 if problems else 0)
