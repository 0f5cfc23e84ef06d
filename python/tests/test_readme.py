"""The README's "From Python" example runs as written."""

import contextlib
import io
import re

from conftest import ROOT


def test_readme_example(monkeypatch):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## From Python"):]
    section = section[:section.index("\n## ", 3)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    assert len(blocks[0].strip().splitlines()) <= 11
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0] == "6 1.252762968495368"  # as the comment in the README says
    assert lines[1] == "[0, 0, 0, 0, 0.693, 1.253, 1.946]"
    assert lines[2] == "1.252762968495368 inf"
