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


def same(want, got, path=""):
    if isinstance(want, dict):
        for k, v in want.items():
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
    # The certificate is the CLI's, key by key and number by number: both
    # come from the same float64s, written in their shortest decimals.
    assert got.get("certificate") == json.loads(out).get("certificate")


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
    rc, out, err = run(cli, "curve", path, "--json", "--quiet", "--certificates")
    p = pmlopt.load(path)
    if rc != 0:
        with pytest.raises(ValueError):
            p.curve()
        return
    want = json.loads(out)["points"]
    got = p.curve(certificates=True)
    same(numbers(want), got)
    assert [pt["certificate"] for pt in got] == [pt["certificate"] for pt in want]
    # Without certificates=True the points have none, as the CLI's
    # without --certificates.
    assert not any("certificate" in pt for pt in p.curve())


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
                       "--epsilons", "0.5,1", "--json", "--quiet", "--certificates")
    assert rc == 0, err
    want = numbers(json.loads(out))
    p = pmlopt.load(path)
    got = pmlopt.curve(p.prior, p.utility, objective="expected-utility", measure=["pml", "alip"], epsilons=[0.5, 1],
                       certificates=True)
    for c in want["curves"]:
        c.pop("epsilons_left", None)
    same(want["curves"], got)
    certs = lambda curves: [pt["certificate"] for c in curves for pt in c["points"]]  # noqa: E731
    assert len(certs(got)) == 4
    assert certs(got) == certs(json.loads(out)["curves"])


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


def claims(stdout):
    """The claims pmlopt verify prints: (name, verified) per line."""
    out = []
    for line in stdout.splitlines():
        for mark, ok in (("verified  ", True), ("FAILED    ", False)):
            if line.startswith(mark):
                out.append((line[len(mark):].split(":")[0], ok))
    return out


def test_verify_agrees(cli, testdata, tmp_path):
    # A solve --out file holds the problem, the mechanism and the
    # certificate: Python's verify and the CLI's check the same claims.
    path = str(testdata / "counting-query.yaml")
    solved = tmp_path / "solved.yaml"
    rc, _, err = run(cli, "solve", path, "--out", str(solved))
    assert rc == 0, err
    rc, out, err = run(cli, "verify", str(solved))
    assert rc == 0, err
    got = pmlopt.verify(solved)
    assert got["verified"] is True
    assert [(c["name"], c["ok"]) for c in got["claims"]] == claims(out)
    # The same certificate from solve --json, with the problem named.
    answer = tmp_path / "answer.json"
    rc, out, err = run(cli, "solve", path, "--json")
    assert rc == 0, err
    answer.write_text(out)
    assert pmlopt.verify(answer, problem=path)["verified"] is True
    # A tampered file: both refuse it, on the same claim.
    doc = json.loads(out)
    doc["certificate"]["lower"]["optimal_epsilon_lower"] = 1.26  # above the level 1.2528 the mechanism reaches
    answer.write_text(json.dumps(doc))
    rc, out, err = run(cli, "verify", str(answer), "--problem", path)
    assert rc == 1
    got = pmlopt.verify(answer, problem=path)
    assert got["verified"] is False
    assert [(c["name"], c["ok"]) for c in got["claims"]] == claims(out)
    assert ("lower end", False) in claims(out)


@pytest.mark.parametrize("objective,measure,shape", [
    ("worst-case-value", "pml", "box"), ("expected-utility", "pml", "l1"), ("expected-utility", "lip", "box"),
])
def test_prior_set_agrees(cli, testdata, tmp_path, objective, measure, shape):
    """A file with a prior set (new --confidence): the Problem's solve,
    audit and curve hold the budget over the set, as the CLI's do."""
    path = str(tmp_path / "p.yaml")
    rc, _, err = run(cli, "new", "--prior-from", str(testdata / "survey.csv"), "--column", "children",
                     "--utility", "abs", "--epsilon", "1", "--measure", measure, "--objective", objective,
                     "--confidence", "0.95", "--prior-set", shape, "-o", path)
    assert rc == 0, err
    p = pmlopt.load(path)
    assert p.prior_set is not None and p.prior_set["confidence"] == 0.95
    rc, out, err = run(cli, "solve", path, "--json")
    assert rc == 0, err
    want = numbers(json.loads(out))
    for k in ("inputs", "outputs"):
        want.pop(k, None)
    got = p.solve()
    same(want, got.as_dict())
    assert got.certificate == json.loads(out)["certificate"]
    assert pmlopt.verify(got.certificate, problem=p, mechanism=got.mechanism)["verified"]
    solved = str(tmp_path / "solved.yaml")
    rc, _, err = run(cli, "solve", path, "--out", solved)
    assert rc == 0, err
    rc, out, err = run(cli, "audit", solved, "--json")
    assert rc == 0, err
    a = pmlopt.load(solved).audit()
    same(numbers(json.loads(out)), a)
    assert a["within_budget"] and a["pml_over_prior_set"] is not None
    assert pmlopt.verify(solved)["verified"]
    with pytest.raises(ValueError, match="prior_set: the problem file gives its own"):
        pmlopt.verify(solved, prior_set={"l1_radius": 0.1})
    with pytest.raises(ValueError, match="prior_set: safe works at one prior"):
        p.safe(h=1)
    with pytest.raises(ValueError, match="prior_set: safe works at one prior"):
        pmlopt._lib.call("safe", {"h": 1, "prior_set": {"l1_radius": 0.1}}, p.prior, p.utility, None, None,
                         *p.utility.shape)
    if objective == "expected-utility":
        rc, out, err = run(cli, "curve", path, "--objective", "expected-utility", "--measure", measure,
                           "--epsilons", "0.5,2", "--json", "--quiet")
        assert rc == 0, err
        want = numbers(json.loads(out))["curves"]
        for c in want:
            c.pop("epsilons_left", None)
        same(want, p.curve(objective="expected-utility", measure=measure, epsilons=[0.5, 2]))


def test_prior_set_changes_the_answer(testdata):
    """The same prior and utility over a ball: the expected utility over
    the set is below the one at the prior, and the mechanism keeps its
    budget over the set (by the audit over the set), which the one at the
    prior does not; a malformed set is refused naming its field."""
    p = pmlopt.load(testdata / "expected-utility.yaml")
    ball = {"l1_radius": 0.3}
    at = pmlopt.solve(p.prior, p.utility, epsilon=1, objective="expected-utility")
    over = pmlopt.solve(p.prior, p.utility, epsilon=1, objective="expected-utility", prior_set=ball)
    assert over.expected_utility < at.expected_utility - 1e-6
    a = pmlopt.audit(p.prior, over.mechanism, epsilon=1, prior_set=ball)
    assert a["within_budget"] and a["pml_over_prior_set"] <= 1 + 1e-9
    b = pmlopt.audit(p.prior, at.mechanism, epsilon=1, prior_set=ball)
    assert not b["within_budget"] and b["pml_over_prior_set"] > 1 + 1e-6
    n = len(p.prior)
    for bad, field in [({"l1_radius": 3}, "prior_set.l1_radius"), ({"lower": [0] * n}, "prior_set.upper"),
                       ({"lower": [0] * n, "upper": [1] * n, "l1_radius": 0.1}, "prior_set"),
                       ({"radius": 0.1}, "prior_set"), ([0.1], "prior_set")]:
        with pytest.raises(ValueError, match=field):
            pmlopt.solve(p.prior, p.utility, epsilon=1, objective="expected-utility", prior_set=bad)
