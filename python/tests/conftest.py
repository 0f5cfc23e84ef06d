"""Fixtures: the repository's testdata and the CLI built from the same checkout."""

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


@pytest.fixture(scope="session")
def testdata():
    return TESTDATA


@pytest.fixture(scope="session")
def cli(tmp_path_factory):
    """The pmlopt CLI, built with go build -o into a temporary directory."""
    go = os.environ.get("PMLOPT_GO") or shutil.which("go")
    if go is None:
        pytest.skip("go is not on PATH: the CLI comparisons need it")
    exe = tmp_path_factory.mktemp("cli") / "pmlopt"
    subprocess.run([go, "build", "-o", str(exe), "./cmd/pmlopt"], cwd=ROOT, check=True)
    return str(exe)


def pml(prior, mechanism):
    """The PML of a mechanism, computed here from its definition
    (Saeidian et al. 2023): max over outputs y with P(y) > 0 of
    log max_x P(y|x) / P(y)."""
    prior, mechanism = np.asarray(prior), np.asarray(mechanism)
    marginal = prior @ mechanism
    used = marginal > 0
    return float(np.max(np.log(mechanism[:, used].max(axis=0) / marginal[used])))


def worst_case_order(order, mechanism):
    """The least order of a used pair (P(y|x) > 0)."""
    return int(np.min(np.asarray(order)[np.asarray(mechanism) > 0]))


def check_mechanism(prior, mechanism):
    """Rows of a mechanism are distributions over the outputs."""
    assert np.all(mechanism >= 0)
    np.testing.assert_allclose(mechanism.sum(axis=1), 1, atol=1e-9)
