"""The examples of Song & Oechtering (2026), checked against numbers
computed here from the mechanisms returned."""

import math

import numpy as np
import pytest

import pmlopt
from conftest import check_mechanism, pml, worst_case_order


def test_counting_query_reaches_order_6_at_1_3(testdata):
    # §IV-A, Fig. 1: at ε = 1.3 the optimum reaches order 6, one above
    # the utility-safe M*(5), at the least ε log 3.5.
    p = pmlopt.load(testdata / "counting-query.yaml")
    sol = pmlopt.solve(p.prior, p.utility, epsilon=1.3)
    check_mechanism(p.prior, sol.mechanism)
    assert sol.worst_case_order == 6
    assert worst_case_order(p.order, sol.mechanism) == 6
    assert pml(p.prior, sol.mechanism) == pytest.approx(sol.epsilon, abs=1e-9)
    assert sol.epsilon <= 1.3 + 1e-9
    assert sol.epsilon == pytest.approx(math.log(3.5), abs=1e-8)
    assert sol.optimal_epsilon_lower <= sol.epsilon
    assert sol.epsilon - sol.optimal_epsilon_lower <= 2e-9
    # The utility-safe mechanism within 1.3 reaches less.
    s = pmlopt.safe(p.prior, p.utility, epsilon=1.3)
    assert s["h"] < 6
    assert pml(p.prior, s["mechanism"]) == pytest.approx(s["epsilon"], abs=1e-12)
    assert sol.expected_utility == pytest.approx(float(np.sum(p.prior[:, None] * sol.mechanism * p.utility)), abs=1e-12)
    assert sol.expected_utility_bound is None  # a worst-case solve proves none


def test_figure_3_gap_at_h_2(testdata):
    # §IV-B, Fig. 3 (three low-mass letters): at h = 2 the optimal ε lies
    # strictly below the utility-safe ε_S(2).
    p = pmlopt.load(testdata / "circulant-three-low.yaml")
    pts = pmlopt.curve(p.prior, order=p.order, mechanisms=True)
    assert [pt["h"] for pt in pts] == list(range(1, len(pts) + 1))
    at2 = pts[1]
    safe2 = pmlopt.safe(p.prior, order=p.order, h=2)
    assert pml(p.prior, safe2["mechanism"]) == pytest.approx(at2["safe_epsilon"], abs=1e-12)
    assert at2["optimal_epsilon"] == pytest.approx(0.40546510810816444, abs=1e-8)
    assert at2["safe_epsilon"] - at2["optimal_epsilon"] > 0.05
    m = at2["mechanism"]
    check_mechanism(p.prior, m)
    assert worst_case_order(p.order, m) >= 2
    assert pml(p.prior, m) <= at2["optimal_epsilon"] + 1e-9
    for pt in pts:
        assert pt["optimal_epsilon_lower"] <= pt["optimal_epsilon"] <= pt["safe_epsilon"] + 1e-9
