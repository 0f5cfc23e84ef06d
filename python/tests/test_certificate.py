"""Certificates from Python: what solve and curve return, and verify."""

import copy
import math

import numpy as np
import pytest

import pmlopt


@pytest.fixture(scope="module")
def counting(testdata):
    return pmlopt.load(testdata / "counting-query.yaml")


def failed(verdict):
    return [c["name"] for c in verdict["claims"] if not c["ok"]]


def test_solve_certificate_verifies(counting):
    p = counting
    sol = p.solve(epsilon=1.3)
    c = sol.certificate
    # Song & Oechtering (2026), §IV-A: ε = 1.3 reaches order 6, and no
    # mechanism reaching it has ε below log 3.5.
    assert c["objective"] == "worst-case-order" and c["measure"] == "pml"
    assert c["worst_case_order"] == sol.worst_case_order == 6
    assert c["budget"] == {"epsilon": 1.3}
    assert c["lower"]["optimal_epsilon_lower"] == sol.optimal_epsilon_lower
    assert c["lower"]["optimal_epsilon_lower"] == pytest.approx(math.log(3.5), abs=1e-9)
    assert len(c["lower"]["alpha"]) == 7 and len(c["lower"]["nu"]) == 7
    # The claimed level rounds the audited one up (docs/certificates.md).
    assert sol.epsilon <= c["epsilon"] <= sol.epsilon + 1e-11
    v = pmlopt.verify(c, p.prior, p.utility, mechanism=sol.mechanism)
    assert v["verified"] is True, failed(v)
    assert {"shape", "prior", "rows", "level", "budget", "lower end"} <= {x["name"] for x in v["claims"]}
    # The order, given instead of the utility, is what the utility implies.
    assert pmlopt.verify(c, p.prior, order=p.order, mechanism=sol.mechanism)["verified"] is True
    # A Problem stands for its matrices.
    assert pmlopt.verify(c, problem=p, mechanism=sol.mechanism)["verified"] is True


@pytest.mark.parametrize("tamper, claim", [
    (lambda c, m: c.update(epsilon=1.2), "level"),  # below the mechanism's PML log 3.5
    (lambda c, m: c["lower"].update(optimal_epsilon_lower=1.26), "lower end"),
    (lambda c, m: c["lower"]["nu"].__setitem__(0, c["lower"]["nu"][0] + 1), "lower end"),
    # Input 0 sends to output 1, its order 6: not order 7 everywhere.
    (lambda c, m: c.update(worst_case_order=7), "zero pattern"),
    # Another mechanism: output 0 now has max_i p_i0 / q_0 = 7 > e^1.2528.
    (lambda c, m: m.__setitem__((0, slice(None)), [0.5, 0.5, 0, 0, 0, 0, 0]), "level"),
])
def test_tampered_certificate_is_refused(counting, tamper, claim):
    p = counting
    sol = p.solve(epsilon=1.3)
    c, m = copy.deepcopy(sol.certificate), sol.mechanism.copy()
    tamper(c, m)
    v = pmlopt.verify(c, p.prior, p.utility, mechanism=m)
    assert v["verified"] is False
    assert claim in failed(v)
    assert all(x["detail"] for x in v["claims"])


def test_expected_utility_certificate(testdata):
    p = pmlopt.load(testdata / "expected-utility.yaml")
    sol = p.solve(objective="expected-utility")
    c = sol.certificate
    assert c["utility"]["expected_utility"] == sol.expected_utility
    assert c["utility"]["expected_utility_bound"] == sol.expected_utility_bound
    eu = float(np.sum(p.prior[:, None] * sol.mechanism * p.utility))
    assert c["utility"]["expected_utility"] == pytest.approx(eu, abs=1e-12)
    assert pmlopt.verify(c, p.prior, p.utility, mechanism=sol.mechanism)["verified"] is True
    # A bound below the optimum is not proven by the multipliers.
    bad = copy.deepcopy(c)
    bad["utility"]["expected_utility_bound"] = sol.expected_utility - 0.01
    assert "expected utility bound" in failed(pmlopt.verify(bad, p.prior, p.utility, mechanism=sol.mechanism))


def test_curve_certificates(counting):
    p = counting
    pts = p.curve(certificates=True)
    assert [pt["h"] for pt in pts] == list(range(1, 8))
    for pt in pts:
        c = pt["certificate"]
        assert c["lower"]["optimal_epsilon_lower"] == pt["optimal_epsilon_lower"]
        assert c["worst_case_order"] >= pt["h"]
        # A point's certificate holds its mechanism: the problem suffices.
        v = pmlopt.verify(c, p.prior, p.utility)
        assert v["verified"] is True, (pt["h"], failed(v))
    assert all("certificate" not in pt for pt in p.curve())


def test_baseline_has_no_certificate(counting):
    assert counting.baseline("exponential").certificate is None
    assert "certificate" not in counting.baseline("exponential").as_dict()


def test_verify_errors(counting, tmp_path):
    p = counting
    sol = p.solve(epsilon=1.3)
    with pytest.raises(ValueError, match="mechanism: the certificate has none of its own"):
        pmlopt.verify(sol.certificate, p.prior, p.utility)
    with pytest.raises(ValueError, match="prior: give the problem"):
        pmlopt.verify(sol.certificate, mechanism=sol.mechanism)
    with pytest.raises(ValueError, match="certificate: want a dict or a path, got int"):
        pmlopt.verify(3, p.prior, p.utility)
    with pytest.raises(ValueError, match="no certificate at its top level"):
        pmlopt.verify(_problem_file(tmp_path))
    with pytest.raises(ValueError, match="certificate: "):
        pmlopt.verify({"epsilon": "x"}, p.prior, p.utility, mechanism=sol.mechanism)
    bad = copy.deepcopy(sol.certificate)
    bad["epsilon"] = math.inf
    with pytest.raises(ValueError, match=r"certificate: epsilon is inf, not a finite number"):
        pmlopt.verify(bad, p.prior, p.utility, mechanism=sol.mechanism)
    bad = copy.deepcopy(sol.certificate)
    bad["lower"]["alpha"][2] = math.nan
    with pytest.raises(ValueError, match=r"certificate: lower.alpha\[2\] is nan, not a finite number"):
        pmlopt.verify(bad, p.prior, p.utility, mechanism=sol.mechanism)


def _problem_file(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("prior: [0.5, 0.5]\nutility: [[1, 0], [0, 1]]\n")
    return f
