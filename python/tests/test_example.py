"""The example script runs end to end and keeps its promise."""

import csv
import os
import subprocess
import sys
from pathlib import Path

import pmlopt

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "survey.py"


def test_survey_example(testdata, tmp_path):
    r = subprocess.run([sys.executable, str(EXAMPLE), str(testdata / "survey.csv"), str(tmp_path), "--seed", "3"],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(Path(pmlopt.__file__).parents[1])))
    assert r.returncode == 0, r.stderr
    assert "budget 1: worst case -1 at PML 0.744440 (audit: within)" in r.stdout
    with open(tmp_path / "private.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 40
    # Worst case −1: every release is within one child of the truth.
    assert all(abs(int(r["children"]) - int(r["children_private"])) <= 1 for r in rows)
    assert any(r["children"] != r["children_private"] for r in rows)
