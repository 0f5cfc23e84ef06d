"""pmlopt from Python: optimal privacy mechanisms under pointwise maximal
leakage (PML), and LIP, ALIP and LDP budgets, with numpy in and numpy out.

The work is done by pmlopt's Go library, compiled into this package as a C
shared library; matrices cross as raw float64 buffers. Names of functions,
keywords, attributes and dictionary keys are those of the CLI's --json
output (docs/cli.md, "JSON output"), so one description serves both.

    >>> import pmlopt
    >>> sol = pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=0.5)

Infinite values are math.inf; values a method does not give are None. Bad
input raises ValueError with the one-line message the CLI prints. Ctrl-C
during a call made from the main thread raises KeyboardInterrupt within a
fraction of a second and returns nothing of the call. The GIL is released
while Go works, so Python threads can run several calls at once.

Answers carry certificates (docs/certificates.md): Solution.certificate,
and each curve point's "certificate" with curve(..., certificates=True);
verify() re-checks one in exact arithmetic, as ``pmlopt verify``.
"""

import math
import os

import numpy as np

from . import _lib

__all__ = [
    "Solution",
    "Problem",
    "solve",
    "curve",
    "audit",
    "safe",
    "baseline",
    "convert",
    "sample",
    "load",
    "verify",
    "plot_curve",
]


def _array(field, v, ndim):
    try:
        raw = np.asarray(v)
        if np.iscomplexobj(raw):
            # numpy would drop the imaginary parts with only a warning.
            raise ValueError("complex numbers; want real ones")
        a = np.ascontiguousarray(np.asarray(raw, dtype=np.float64))
    except (TypeError, ValueError) as e:
        raise ValueError("%s: %s" % (field, e)) from None
    if a.ndim != ndim:
        want = "a vector" if ndim == 1 else "a matrix (a list of rows of equal length)"
        raise ValueError("%s: want %s, got an array of shape %s" % (field, want, a.shape))
    return a


def _inputs(prior, utility=None, order=None, mechanism=None):
    """Checks shapes and returns contiguous float64 arrays with n, m."""
    p = _array("prior", prior, 1)
    n, m, first = p.shape[0], None, None
    out = []
    for field, v in (("utility", utility), ("order", order), ("mechanism", mechanism)):
        if v is None:
            out.append(None)
            continue
        a = _array(field, v, 2)
        if a.shape[0] != n:
            raise ValueError("%s: has %d rows, but the prior has %d letters" % (field, a.shape[0], n))
        if m is not None and a.shape[1] != m:
            raise ValueError("%s: has %d columns, but %s has %d" % (field, a.shape[1], first, m))
        if m is None:
            m, first = a.shape[1], field
        out.append(a)
    return p, out[0], out[1], out[2], n, (m or 0)


class Solution:
    """An optimal (or calibrated) mechanism and what it achieves.

    Attributes, as the keys of ``pmlopt solve --json``:
    mechanism (numpy N×M), epsilon (the audited level of the budget's
    measure; ε_u for ALIP), optimal_epsilon_lower (a certified lower bound
    on the least ε reaching the same worst case; for expected utility equal
    to epsilon), alip_lower (audited ε_l for ALIP, else None),
    worst_case_order, worst_case_value, expected_utility,
    expected_utility_bound (a proven upper bound on the optimal expected
    utility, or None), status, solver, lp_solves, objective, measure.
    certificate: the answer's certificate (docs/certificates.md), a dict
    with the keys of solve --json's ``certificate`` that verify() re-checks
    in exact arithmetic, or None (baseline gives none).
    ``extra`` holds the keys of the joint solve (min_order, min_value,
    least_epsilon_lower, least_epsilon_upper) and of baseline (baseline,
    parameter, parameter_name, parameter_start, audits) when present.
    """

    _FIELDS = (
        "status", "objective", "measure", "epsilon", "optimal_epsilon_lower", "alip_lower", "worst_case_order",
        "worst_case_value", "expected_utility", "expected_utility_bound", "solver", "lp_solves",
    )

    def __init__(self, doc, mechanism):
        for k in self._FIELDS:
            setattr(self, k, doc.get(k))
        self.mechanism = mechanism
        self.certificate = doc.get("certificate")
        self.extra = {k: v for k, v in doc.items() if k not in self._FIELDS and k not in ("mechanism", "certificate")}

    def as_dict(self):
        """The solution as a dict with the keys of ``solve --json``."""
        d = {k: getattr(self, k) for k in self._FIELDS}
        d.update(self.extra)
        d["mechanism"] = self.mechanism
        if self.certificate is not None:
            d["certificate"] = self.certificate
        return d

    def __repr__(self):
        return "Solution(%s, epsilon=%r, worst_case_order=%r, expected_utility=%r, mechanism %d×%d)" % (
            self.status, self.epsilon, self.worst_case_order, self.expected_utility, *self.mechanism.shape)

    def plot_heatmap(self, ax=None, inputs=None, outputs=None):
        """Draws the mechanism as a heat map (needs matplotlib); returns the Axes."""
        from .plot import heatmap

        return heatmap(self.mechanism, ax=ax, inputs=inputs, outputs=outputs,
                       title="%s, %s ε = %.4g" % (self.objective, self.measure, self.epsilon))


def _params(**kw):
    return {k: v for k, v in kw.items() if v is not None}


def _prior_set(ps):
    """A prior set as the library reads it: a dict with lower and upper
    (a box) or l1_radius (the L1 ball around the prior), as a problem
    file's prior_set; its other keys (method, samples, confidence) are a
    record and do not cross."""
    if ps is None:
        return None
    if not isinstance(ps, dict):
        raise ValueError("prior_set: want a dict with lower and upper, or l1_radius, got %s" % type(ps).__name__)
    unknown = sorted(set(ps) - {"lower", "upper", "l1_radius", "method", "samples", "confidence"})
    if unknown:
        raise ValueError("prior_set: unknown key %r" % unknown[0])
    out = {}
    for k in ("lower", "upper"):
        if ps.get(k) is not None:
            out[k] = _array("prior_set." + k, ps[k], 1).tolist()
    if ps.get("l1_radius") is not None:
        try:
            out["l1_radius"] = float(ps["l1_radius"])
        except (TypeError, ValueError):
            raise ValueError("prior_set.l1_radius: want a number, got %r" % (ps["l1_radius"],)) from None
    return out


def solve(prior, utility=None, *, epsilon, measure="pml", objective="worst-case-order", epsilon_lower=None,
          min_order=None, min_value=None, solver="auto", tol=1e-9, order=None, prior_set=None):
    """The optimal mechanism for a prior, a utility and a privacy budget.

    prior: N probabilities; utility: N×M utilities (or order=: an N×M
    utility order, ranks 1..M per row). epsilon: the budget in nats (ε_u
    for measure="alip", with epsilon_lower its ε_l); measure: pml, lip,
    alip or ldp. objective: worst-case-order, worst-case-value or
    expected-utility. min_order / min_value: the best expected utility
    among the ε-PML mechanisms keeping that worst case (solve's
    --min-order / --min-value), with objective="expected-utility".
    solver: auto or an LP backend; tol: the width of the ε bracket of the
    worst-case objectives. prior_set: a dict with lower and upper (a box)
    or l1_radius (the L1 ball around the prior), as a problem file's
    prior_set: the budget then holds for every prior of the set
    (docs/theory.md §7).
    Returns a Solution; raises ValueError on bad input.
    """
    p, u, o, _, n, m = _inputs(prior, utility, order)
    doc, mats = _lib.call("solve", _params(epsilon=float(epsilon), measure=measure, objective=objective,
                                             epsilon_lower=epsilon_lower, min_order=min_order, min_value=min_value,
                                             solver=solver, tol=tol, prior_set=_prior_set(prior_set)),
                          p, u, o, None, n, m)
    return Solution(doc, mats[0])


def _with_mechanisms(points, mats):
    for pt in points:
        if "mechanism" in pt:
            pt["mechanism"] = mats[pt["mechanism"]]
    return points


def curve(prior, utility=None, *, objective="worst-case-order", order=None, workers=0, solver="auto", tol=1e-9,
          mechanisms=False, measure="pml", epsilons=None, alip_ratio=None, certificates=False, prior_set=None):
    """The trade-off curve of a prior and a utility (or order=).

    For worst-case-order and worst-case-value: a list of points, dicts with
    the keys of ``curve --json``: h (orders) or threshold (values),
    safe_epsilon, optimal_epsilon_lower, optimal_epsilon (the certified
    bracket on the least ε), worst_case_value (with a utility), lp_solves,
    and mechanism (numpy) when mechanisms=True. workers: thresholds solved
    at once (0: every core).

    For expected-utility: one curve per measure (measure= a name or a list
    of pml, lip, alip, ldp) over the budgets epsilons=, as dicts with
    measure, alip_ratio (ALIP: ε_l = alip_ratio·ε_u, default 1/2) and
    points (epsilon, epsilon_lower for ALIP, audited_epsilon,
    expected_utility, expected_utility_bound, worst_case_value,
    worst_case_order, solver, and mechanism on request).

    certificates=True gives every point a "certificate", as ``curve --json
    --certificates``: a dict holding the point's mechanism (as lists) and
    the proof of its claims, which verify() re-checks.

    prior_set: as solve()'s; every point then holds its budget over the set.

    Ctrl-C raises KeyboardInterrupt and returns no partial curve.
    """
    p, u, o, _, n, m = _inputs(prior, utility, order)
    measures = [measure] if isinstance(measure, str) else list(measure)
    params = _params(objective=objective, workers=workers, solver=solver, tol=tol, mechanisms=mechanisms or None,
                     certificates=certificates or None, prior_set=_prior_set(prior_set))
    if objective == "expected-utility":
        if epsilons is None:
            raise ValueError("epsilons: give the budgets of an expected-utility curve")
        params.update(_params(measures=measures, epsilons=[float(e) for e in epsilons], alip_ratio=alip_ratio))
    doc, mats = _lib.call("curve", params, p, u, o, None, n, m)
    if objective == "expected-utility":
        for c in doc["curves"]:
            _with_mechanisms(c["points"], mats)
        return doc["curves"]
    return _with_mechanisms(doc["points"], mats)


def audit(prior, mechanism, *, alpha=2, beta=1, measure=None, epsilon=None, epsilon_lower=None, prior_set=None):
    """Every leakage measure of a mechanism for a prior, as ``audit --json``.

    Returns a dict: pml, pml_per_output, pmc, pmc_per_output, alip_lower,
    alip_upper, lip, ldp, lift, bayes_capacity, maximal_leakage,
    posterior_bayes_vulnerability, bayes_leakage, maximal_alpha_leakage
    (and _upper), maximal_alpha_beta_leakage (and _upper), lrdp, alpha,
    beta, output_marginal, p_min, implied, notes when a bracket is wide;
    with a budget (epsilon=, measure=) also privacy, within_budget and
    budget_excess. alpha > 1 and beta ≥ 1 may be math.inf. With prior_set
    (as solve()'s) also pml_over_prior_set, lip_over_prior_set and
    alip_over_prior_set, the largest levels over the set, which the
    budget's verdict then uses.
    """
    p, _, _, mm, n, m = _inputs(prior, mechanism=mechanism)
    params = _params(alpha=float(alpha), beta=float(beta), measure=measure if epsilon is not None else None,
                     epsilon=None if epsilon is None else float(epsilon), epsilon_lower=epsilon_lower,
                     prior_set=_prior_set(prior_set))
    doc, _ = _lib.call("audit", params, p, None, None, mm, n, m)
    return doc


def safe(prior, utility=None, *, order=None, h=None, epsilon=None):
    """The utility-safe mechanism M*(h) (Song & Oechtering 2026, Thm 1).

    Give h (1..M), or a PML budget epsilon for the largest h whose M*(h)
    is within it. Returns a dict as ``safe --json``: h, epsilon (the PML of
    M*(h)), safe_epsilon (ε_S(h), Cor 1), mechanism (numpy),
    pml_per_output, output_marginal.
    """
    p, u, o, _, n, m = _inputs(prior, utility, order)
    doc, mats = _lib.call("safe", _params(h=h, epsilon=None if epsilon is None else float(epsilon)), p, u, o, None,
                          n, m)
    doc["mechanism"] = mats[0]
    return doc


def baseline(prior, utility=None, kind="randomized-response", *, epsilon, measure="pml", epsilon_lower=None,
             objective="worst-case-order", order=None, prior_set=None):
    """A closed-form mechanism calibrated to a budget (``pmlopt baseline``).

    kind: randomized-response, exponential, extremal or utility-safe; the
    largest parameter whose audited level is within the budget (over
    prior_set, as solve()'s, when given). Returns a Solution whose extra
    holds baseline, parameter, parameter_name, parameter_start and audits.
    """
    p, u, o, _, n, m = _inputs(prior, utility, order)
    doc, mats = _lib.call("baseline", _params(baseline=kind, epsilon=float(epsilon), measure=measure,
                                                epsilon_lower=epsilon_lower, objective=objective,
                                                prior_set=_prior_set(prior_set)), p, u, o, None, n, m)
    return Solution(doc, mats[0])


def convert(measure, epsilon, *, pmin, epsilon_lower=None):
    """The guarantees a guarantee implies for a prior's smallest mass pmin.

    measure: pml, pmc, alip, lip or ldp (for alip, epsilon is ε_u and
    epsilon_lower ε_l). Returns a dict as ``convert --json``: from, p_min,
    implied (measure, epsilon or epsilon_lower/epsilon_upper, holds, regime).
    """
    doc, _ = _lib.call("convert", _params(**{"from": measure, "epsilon": float(epsilon), "pmin": float(pmin),
                                              "epsilon_lower": epsilon_lower}))
    return doc


def sample(mechanism, inputs, *, seed=None):
    """Draws one output index of mechanism for each input index in inputs.

    The draws come from the operating system's cryptographic source, fresh
    on every call; seed (an integer) makes them reproducible, for tests and
    simulations only, never for releases of real data. Returns a numpy
    int64 array as long as inputs.
    """
    mm = _array("mechanism", mechanism, 2)
    idx = _indices("inputs", inputs)
    if seed is not None:
        if not _is_int(seed) or not 0 <= seed < 1 << 64:
            raise ValueError("seed: want an integer in [0, 2^64), got %r" % (seed,))
        seed = int(seed)
    return _lib.sample(mm, idx, seed)


def _is_int(x):
    """Whether x is a Python or numpy integer (True and False are not)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _indices(field, v):
    """A 1-d int64 array of the indices v, refused unless every entry is
    an integer: 0.5 or "1" is no input index, and truncating it would
    privatise another input's record."""
    try:
        a = np.asarray(v)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError("%s: %s" % (field, e)) from None
    if a.ndim > 1:
        raise ValueError("%s: want a sequence of input indices, got an array of shape %s" % (field, a.shape))
    a = a.reshape(-1)
    kind = a.dtype.kind
    if a.size == 0:
        return np.empty(0, dtype=np.int64)
    if kind == "f":
        bad = ~np.isfinite(a) | (a != np.trunc(a)) | (np.abs(a) >= 2.0**63)
    elif kind == "O":  # Python integers beyond int64, or mixed types
        bad = np.array([not (_is_int(x) and -(1 << 63) <= x < 1 << 63) for x in a])
    elif kind == "u":
        bad = a >= np.uint64(1 << 63)
    elif kind == "i":
        bad = np.zeros(a.shape, dtype=bool)
    else:
        raise ValueError("%s: want input indices (integers), got %s entries" % (field, a.dtype))
    if bad.any():
        k = int(np.argmax(bad))
        x = a[k].item() if hasattr(a[k], "item") else a[k]
        raise ValueError("%s: entry %d is %r, not an input index" % (field, k, x))
    return np.ascontiguousarray(a.astype(np.int64))


class Problem:
    """A problem file (YAML or JSON, the format of docs/problem-files.md), read by load().

    Attributes: name, inputs, outputs (labels or None), prior (numpy N),
    utility, order, mechanism (numpy N×M or None), privacy (a dict with
    measure and epsilon, or epsilon_lower and epsilon_upper for ALIP; None
    without a budget), objective (or None), prior_set (a dict with lower
    and upper, or l1_radius, and method, samples and confidence when the
    file records them; None without one). The methods run the CLI's
    commands on it with the file's budget, objective and prior set unless
    overridden.
    """

    def __init__(self, doc, mats):
        self.name = doc.get("name") or None
        self.inputs, self.outputs = doc.get("inputs"), doc.get("outputs")
        self.objective = doc.get("objective") or None
        self.privacy = doc.get("privacy")
        self.prior_set = doc.get("prior_set")
        pick = lambda k: None if doc[k] < 0 else mats[doc[k]]  # noqa: E731
        self.prior = pick("prior")[0].copy()
        self.utility, self.order, self.mechanism = pick("utility"), pick("order"), pick("mechanism")
        if self.order is not None:
            self.order = self.order.astype(np.int64)

    def _budget(self, kw):
        b = self.privacy or {}
        if "epsilon" not in kw and "measure" not in kw and b:
            kw["measure"] = b["measure"]
            if b["measure"] == "alip":
                kw.setdefault("epsilon_lower", b.get("epsilon_lower"))
                kw["epsilon"] = b.get("epsilon_upper")
            else:
                kw["epsilon"] = b.get("epsilon")
        return kw

    def _set(self, kw):
        if "prior_set" not in kw and self.prior_set is not None:
            kw["prior_set"] = self.prior_set
        return kw

    def _matrices(self, kw):
        if "utility" not in kw and "order" not in kw:
            if self.utility is not None:
                kw["utility"] = self.utility
            else:
                kw["order"] = self.order
        return kw

    def solve(self, **kw):
        """solve() with the file's prior, utility/order, budget, objective and prior set."""
        kw = self._set(self._matrices(self._budget(kw)))
        if "objective" not in kw and self.objective:
            kw["objective"] = self.objective
        if "epsilon" not in kw:
            raise ValueError("privacy: is missing; this command needs a privacy budget (measure and epsilon)")
        return solve(self.prior, **kw)

    def curve(self, **kw):
        """curve() with the file's prior, utility/order and prior set."""
        return curve(self.prior, **self._set(self._matrices(kw)))

    def audit(self, **kw):
        """audit() of the file's mechanism, against its budget when it has one, over its prior set."""
        if self.mechanism is None:
            raise ValueError("mechanism: is missing; this command needs a mechanism")
        return audit(self.prior, self.mechanism, **self._set(self._budget(kw)))

    def safe(self, **kw):
        """safe() with the file's prior and order (its pml budget by default)."""
        if self.prior_set is not None:
            raise ValueError("prior_set: safe works at one prior; baseline(\"utility-safe\") gives the utility-safe "
                             "mechanism over the set")
        if "h" not in kw and "epsilon" not in kw and self.privacy and self.privacy.get("measure") == "pml":
            kw["epsilon"] = self.privacy["epsilon"]
        return safe(self.prior, **self._matrices(kw))

    def baseline(self, kind, **kw):
        """baseline() with the file's prior, utility/order, budget, objective and prior set."""
        kw = self._set(self._matrices(self._budget(kw)))
        if "objective" not in kw and self.objective:
            kw["objective"] = self.objective
        if "epsilon" not in kw:
            raise ValueError("privacy: is missing; this command needs a privacy budget (measure and epsilon)")
        return baseline(self.prior, kind=kind, **kw)

    def __repr__(self):
        return "Problem(%r, N=%d)" % (self.name, self.prior.shape[0])


def _plain(v, path="certificate"):
    """A certificate as JSON takes it: numpy arrays and scalars as lists
    and Python numbers. A certificate holds finite numbers only; the first
    other one is named."""
    if isinstance(v, dict):
        return {k: _plain(x, "%s.%s" % (path, k) if path != "certificate" else "certificate: " + k)
                for k, x in v.items()}
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(x, "%s[%d]" % (path, i)) for i, x in enumerate(v)]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError("%s is %s, not a finite number" % (path, v))
    return v


def verify(certificate, prior=None, utility=None, *, order=None, mechanism=None, problem=None, prior_set=None):
    """Re-checks a certificate in exact arithmetic, as ``pmlopt verify``
    (Go package verify; docs/certificates.md states each claim).

    certificate: a dict (Solution.certificate, a curve point's
    "certificate", or one read from the CLI's JSON), or the path of a file
    with a certificate at its top: what ``solve --out`` writes (the
    problem, the mechanism and the certificate) or ``solve --json``'s
    output. The problem the answer was computed for: the file itself when
    it is one, else problem= (a problem file's path or a Problem, either
    bringing its prior set) or prior with utility or order= (with
    prior_set=, as solve()'s, for an answer over a set). mechanism: the
    mechanism certified, where the certificate holds none
    (Solution.certificate: give Solution.mechanism).

    Returns a dict: verified (True only when every claim holds) and claims,
    a list of dicts with name, ok and detail (the inequality that fails).
    Raises ValueError when the certificate or the problem can not be read.
    """
    if isinstance(problem, Problem):
        if prior is not None or utility is not None or order is not None:
            raise ValueError("problem: give the problem as a Problem or as matrices, not both")
        if prior_set is None:
            prior_set = problem.prior_set
        prior, utility, order, problem = problem.prior, problem.utility, problem.order, None
    params = _params(prior_set=_prior_set(prior_set))
    if isinstance(certificate, dict):
        params["certificate"] = _plain(certificate)
    elif isinstance(certificate, (str, bytes, os.PathLike)):
        params["path"] = os.fsdecode(certificate)
    else:
        raise ValueError("certificate: want a dict or a path, got %s" % type(certificate).__name__)
    if problem is not None:
        params["problem"] = os.fsdecode(problem)
    if prior is None:
        if utility is not None or order is not None:
            raise ValueError("prior: is missing; the utility or order needs the prior it goes with")
        if mechanism is not None:  # the problem is a file: the mechanism alone crosses
            mm = _array("mechanism", mechanism, 2)
            doc, _ = _lib.call("verify", params, None, None, None, mm, mm.shape[0], mm.shape[1])
            return doc
        doc, _ = _lib.call("verify", params)
        return doc
    p, u, o, mm, n, m = _inputs(prior, utility, order, mechanism)
    doc, _ = _lib.call("verify", params, p, u, o, mm, n, m)
    return doc


def load(path):
    """Reads a problem file (YAML or JSON) into a Problem."""
    doc, mats = _lib.call("load", {"path": str(path)})
    return Problem(doc, mats)


def plot_curve(points, ax=None, title=None):
    """Draws a curve()'s points: safe ε and the optimal ε bracket against
    h (or the threshold), or expected-utility curves against ε. Needs
    matplotlib; returns the Axes."""
    from .plot import curve as _curve

    return _curve(points, ax=ax, title=title)

