"""Agreement with the CLI's --json on every testdata file."""

import json
import math
import subprocess

import numpy as np
import pytest

import pmlopt

FILES = ["counting-query.yaml", "example1.yaml", "example1-large.yaml", "circulant-one-low.yaml",
         "circulant-three-low.yaml", "expected-utility.yaml", "expected-utility-alip.yaml",
         "expected-utility-lip.yaml", "expected-utility-ldp.yaml", "eye-colour.json", "grid.yaml",
         "alpha-uncertified.yaml"]


def test_every_file_listed(testdata):
    on_disk = sorted(f.name for f in testdata.iterdir() if f.suffix in (".yaml", ".json"))
    assert on_disk == sorted(FILES)


def run(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def numbers(v):
    """The CLI's JSON with its "inf" strings as floats."""
    if isinstance(v, dict):
        return {k: numbers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [numbers(x) for x in v]
    if v == "inf":
        return math.inf
    if v == "-inf":
        return -math.inf
    return v


# Keys of the CLI's --json that the Python API does not return: the
# certificate of pmlopt verify (README, "verify") is not bound yet.
NOT_BOUND = {"certificate", "certificates"}


def same(want, got, path=""):
    if isinstance(want, dict):
        for k, v in want.items():
            if k in NOT_BOUND:
                continue
            assert k in got, "%s: key %s missing" % (path, k)
            same(v, got[k], path + "." + k)
    elif isinstance(want, list):
        got = got.tolist() if isinstance(got, np.ndarray) else got
        assert len(want) == len(got), path
        for k, (a, b) in enumerate(zip(want, got)):
            same(a, b, "%s[%d]" % (path, k))
    elif isinstance(want, float) or (isinstance(want, int) and not isinstance(want, bool) and isinstance(got, float)):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), path
    else:
        assert want == got, path


@pytest.mark.parametrize("name", FILES)
def test_solve_agrees(cli, testdata, name):
    path = str(testdata / name)
    rc, out, err = run(cli, "solve", path, "--json")
    p = pmlopt.load(path)
    if rc != 0:
        with pytest.raises(ValueError) as e:
            p.solve()
        assert str(e.value).split(": ")[-1] in err
        return
    want = numbers(json.loads(out))
    got = p.solve().as_dict()
    for k in ("inputs", "outputs"):
        want.pop(k, None)
    same(want, got)


@pytest.mark.parametrize("name", FILES)
def test_audit_agrees(cli, testdata, name):
    path = str(testdata / name)
    p = pmlopt.load(path)
    if p.mechanism is None:
        rc, _, err = run(cli, "audit", path, "--json")
        assert rc != 0
        with pytest.raises(ValueError) as e:
            p.audit()
        assert str(e.value) in err
        return
    rc, out, err = run(cli, "audit", path, "--json")
    assert rc in (0, 3), err
    same(numbers(json.loads(out)), p.audit())


@pytest.mark.parametrize("name", [f for f in FILES if not f.startswith("expected") and f != "grid.yaml"])
def test_curve_agrees(cli, testdata, name):
    path = str(testdata / name)
    rc, out, err = run(cli, "curve", path, "--json", "--quiet")
    p = pmlopt.load(path)
    if rc != 0:
        with pytest.raises(ValueError):
            p.curve()
        return
    want = numbers(json.loads(out))
    same(want["points"], p.curve())


@pytest.mark.parametrize("name", ["counting-query.yaml", "grid.yaml"])
def test_safe_agrees(cli, testdata, name):
    path = str(testdata / name)
    rc, out, err = run(cli, "safe", path, "--h", "2", "--json")
    assert rc == 0, err
    want = numbers(json.loads(out))
    for k in ("inputs", "outputs"):
        want.pop(k, None)
    same(want, pmlopt.load(path).safe(h=2))


def test_convert_agrees(cli):
    rc, out, err = run(cli, "convert", "--from", "pml", "--epsilon", "0.1", "--pmin", "0.2", "--json")
    assert rc == 0, err
    same(numbers(json.loads(out)), pmlopt.convert("pml", 0.1, pmin=0.2))


def test_baseline_agrees(cli, testdata):
    path = str(testdata / "counting-query.yaml")
    rc, out, err = run(cli, "baseline", path, "--mechanism", "exponential", "--json")
    assert rc == 0, err
    want = numbers(json.loads(out))
    want.pop("inputs", None)
    want.pop("outputs", None)
    same(want, pmlopt.load(path).baseline("exponential").as_dict())


def test_expected_curve_agrees(cli, testdata):
    path = str(testdata / "expected-utility.yaml")
    rc, out, err = run(cli, "curve", path, "--objective", "expected-utility", "--measure", "pml,alip",
                       "--epsilons", "0.5,1", "--json", "--quiet")
    assert rc == 0, err
    want = numbers(json.loads(out))
    p = pmlopt.load(path)
    got = pmlopt.curve(p.prior, p.utility, objective="expected-utility", measure=["pml", "alip"], epsilons=[0.5, 1])
    for c in want["curves"]:
        c.pop("epsilons_left", None)
    same(want["curves"], got)


def test_bad_files_give_the_cli_message(cli, testdata):
    bad = sorted((testdata / "bad").glob("*.yaml"))
    assert bad
    for f in bad:
        rc, _, err = run(cli, "audit", str(f))
        try:
            pmlopt.load(f)
        except ValueError as e:
            assert rc != 0
            assert str(e) in err, f
        else:
            assert "load" not in err
