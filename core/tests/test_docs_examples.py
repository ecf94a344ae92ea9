"""Every curl example in docs/ runs verbatim against a live server with the demo data:
each page's shell blocks in order, in one bash (variables set by a block carry to the
next ones), with BASE set to the server's URL."""

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```(?:sh|bash)\n(.*?)^```$", re.S | re.M)


def curl_blocks(page: Path) -> list[str]:
    return [b for b in BLOCK.findall(page.read_text()) if "curl " in b]


PAGES = sorted(p for p in DOCS.glob("*.md") if curl_blocks(p))


def test_the_pages_with_curl_examples_are_found():
    names = {p.name for p in PAGES}
    assert {"orders.md", "disputes.md", "form.md", "responses.md", "webhooks.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_curl_examples_run_verbatim(page, demo_transactional, live_server, tmp_path, settings):
    settings.API_RATE_LIMIT = "100000/min"
    script = "set -euo pipefail\n" + "\n".join(curl_blocks(page))
    # The pages' commands run from the repository's root (`.venv/bin/python ...`).
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    log = tmp_path / "out.log"
    with log.open("w") as out_file:
        # Its own session: whatever a page starts in the background (a webhook
        # receiver) is stopped with it, and holds no pipe the test waits on.
        shell = subprocess.Popen(
            ["bash", "-c", script],
            cwd=tmp_path,
            env={**os.environ, "BASE": live_server.url},
            stdout=out_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            returncode = shell.wait(timeout=180)
        finally:
            try:
                os.killpg(shell.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    out = log.read_text()
    assert returncode == 0, out
    assert "internal_error" not in out and "Traceback" not in out, out


def test_the_readme_links_every_page_under_docs():
    readme = (ROOT / "README.md").read_text()
    linked = set(re.findall(r"\]\((docs/[^)#\s]+\.md)", readme))
    pages = {f"docs/{p.name}" for p in DOCS.glob("*.md")}
    assert pages - linked == set()
