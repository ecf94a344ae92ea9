"""Every Python example in the client's README runs as written against a live server
with the demo data (its `http://localhost:8000` pointed at the test's server), as the
docs' curl blocks do (core/tests/test_docs_examples.py)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def python_blocks() -> list[str]:
    return BLOCK.findall(README.read_text())


def test_the_readme_has_its_examples():
    blocks = python_blocks()
    assert len(blocks) >= 3
    assert any("client.form.create(" in b for b in blocks)


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_each_readme_example_runs_as_written(live, index, capsys, tmp_path, monkeypatch):
    # From an empty directory: an example may read no file it does not create.
    monkeypatch.chdir(tmp_path)
    code = python_blocks()[index].replace("http://localhost:8000", live)
    exec(compile(code, f"{README.name} block {index + 1}", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    if "NotFoundError" in code:
        assert "404 order_not_found" in out, out
    if "client.form.create(" in code:
        assert "/form/?session_id=" in out, out


def test_form_create_takes_order_data_whole_or_field_by_field(client):
    whole = client.form.create(order_data={"client_order_id": "w-1", "amount": "700"})
    by_field = client.form.create(client_order_id="f-1", amount="700")
    assert whole.order_data.client_order_id == "w-1" and by_field.order_data.amount == 700
    with pytest.raises(TypeError, match="client_order_id"):
        client.form.create(order_data={"client_order_id": "x", "amount": "1"}, client_order_id="y")
    with pytest.raises(TypeError, match="amount"):
        client.form.create(order_data={"client_order_id": "x"})
