"""Errors, infinities, sampling, interruption and threads."""

import math
import os
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import pmlopt
from pmlopt import _lib
from conftest import check_mechanism, pml


def random_instance(n, seed):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(n))
    utility = rng.standard_normal((n, n))
    return prior, utility


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: pmlopt.solve([0.5, 0.6], [[1, 0], [0, 1]], epsilon=1), "prior: sums to"),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0]], epsilon=1), "utility: has 1 rows, but the prior has 2 letters"),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=800),
         "epsilon must be a number in [0, 700], got 800"),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=-1), "epsilon must be a number in [0, 700]"),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=1, measure="dp"), "measure: "),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=1, solver="nope"),
         'solver: unknown backend "nope"'),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=1, objective="best"), "objective: "),
        (lambda: pmlopt.solve([0.5, math.nan], [[1, 0], [0, 1]], epsilon=1), "prior"),
        (lambda: pmlopt.solve([0.5, 0.5], order=[[1, 2], [2, 1.5]], epsilon=1), "order row 2, column 2: is 1.5, not an integer"),
        (lambda: pmlopt.solve([[0.5, 0.5]], [[1, 0], [0, 1]], epsilon=1), "prior: want a vector"),
        (lambda: pmlopt.solve(["a", "b"], [[1, 0], [0, 1]], epsilon=1), "prior: "),
        (lambda: pmlopt.audit([0.5, 0.5], [[0.5, 0.6], [0, 1]]), "mechanism row 1: sums to 1.1"),
        (lambda: pmlopt.audit([0.5, 0.5], [[1, 0], [0, 1]], alpha=1), "alpha must be > 1, got 1"),
        (lambda: pmlopt.safe([0.5, 0.5], [[1, 0], [0, 1]], h=3), "h: "),
        (lambda: pmlopt.convert("pml", 0.1, pmin=2), "p_min = 2"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], [0, 2], seed=1), "input 2 at position 1 is outside 0..1"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], [0.5, 1.7], seed=1), "inputs: entry 0 is 0.5, not an input index"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], ["1"], seed=1), "inputs: want input indices (integers)"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], [[0, 1], [1, 0]], seed=1), "inputs: want a sequence of input indices"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], [math.inf], seed=1), "inputs: entry 0 is inf"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], [2 ** 64], seed=1), "inputs: entry 0 is 18446744073709551616"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], [True], seed=1), "inputs: want input indices (integers)"),
        (lambda: pmlopt.sample([[1, 0], [0, 1]], [0], seed=1.9), "seed: want an integer"),
        (lambda: pmlopt.sample(np.eye(2, dtype=complex), [0], seed=1), "mechanism: complex numbers"),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=1, objective="worst-case-value", min_order=2),
         'give objective="expected-utility"'),
        (lambda: pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=1, measure=3), "measure: want a string, got number"),
        (lambda: pmlopt.load("/nonexistent/problem.yaml"), "/nonexistent/problem.yaml"),
    ],
)
def test_bad_input_raises_value_error(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_infinities_are_math_inf():
    # The identity mechanism reveals the input: LIP and LDP are infinite,
    # its PML is log 1/π_min.
    r = pmlopt.audit([0.25, 0.75], np.eye(2), alpha=math.inf)
    assert r["ldp"] == math.inf and isinstance(r["ldp"], float)
    assert r["lip"] == math.inf
    assert r["pml"] == pytest.approx(math.log(4), abs=1e-12)
    assert r["alpha"] == math.inf
    assert r["p_min"] == 0.25
    # Infinity is accepted as a parameter too, as the CLI's --alpha inf.
    assert r["maximal_alpha_leakage"] == pytest.approx(math.log(2), abs=1e-9)  # Bayes capacity of eye(2)


def test_budget_verdict():
    m = np.array([[0.8, 0.2], [0.2, 0.8]])
    level = pml([0.5, 0.5], m)
    r = pmlopt.audit([0.5, 0.5], m, measure="pml", epsilon=level / 2)
    assert r["within_budget"] is False
    assert r["budget_excess"] == pytest.approx(level / 2, abs=1e-12)
    assert pmlopt.audit([0.5, 0.5], m, measure="pml", epsilon=level)["within_budget"] is True


def test_expected_utility_under_each_measure():
    prior, utility = random_instance(6, 3)
    for measure, extra in (("pml", {}), ("lip", {}), ("ldp", {}), ("alip", {"epsilon_lower": 0.5})):
        sol = pmlopt.solve(prior, utility, epsilon=1, measure=measure, objective="expected-utility", **extra)
        check_mechanism(prior, sol.mechanism)
        assert sol.measure == measure
        eu = float(np.sum(prior[:, None] * sol.mechanism * utility))
        assert sol.expected_utility == pytest.approx(eu, abs=1e-12)
        assert sol.expected_utility <= sol.expected_utility_bound + 1e-12
        if measure == "pml":
            assert pml(prior, sol.mechanism) <= 1 + 1e-9
        if measure == "alip":
            assert sol.alip_lower <= 0.5 + 1e-9


def test_joint_keeps_the_worst_case(testdata):
    p = pmlopt.load(testdata / "counting-query.yaml")
    sol = pmlopt.solve(p.prior, p.utility, epsilon=1.3, objective="expected-utility", min_order=6)
    assert sol.worst_case_order >= 6
    assert sol.extra["least_epsilon_lower"] <= sol.extra["least_epsilon_upper"]
    with pytest.raises(ValueError, match="below the least ε"):
        pmlopt.solve(p.prior, p.utility, epsilon=0.5, objective="expected-utility", min_order=7)


def test_sample_follows_the_mechanism():
    m = np.array([[0.2, 0.8, 0.0], [0.0, 0.0, 1.0]])
    inputs = np.array([0] * 20000 + [1] * 5)
    out = pmlopt.sample(m, inputs, seed=7)
    assert out.dtype == np.int64 and out.shape == inputs.shape
    assert set(out[inputs == 1]) == {2}
    assert 2 not in set(out[inputs == 0])
    share = np.mean(out[inputs == 0] == 1)
    assert abs(share - 0.8) < 0.02  # 20 000 draws: the standard error is 0.003
    np.testing.assert_array_equal(out, pmlopt.sample(m, inputs, seed=7))
    # Unseeded draws are fresh: two runs of 20 000 draws agree by chance
    # with probability far below 1e-100.
    assert not np.array_equal(pmlopt.sample(m, inputs), pmlopt.sample(m, inputs))


@pytest.fixture
def handler():
    """Installs a Python handler for a signal for one test, then restores
    the one before.

    Python raises KeyboardInterrupt on SIGINT only where SIGINT is handled
    when it starts: a pytest started by a script as `pytest &` (a shell
    without job control) inherits SIGINT ignored, and a Ctrl-C test would
    then see the curve run to its end, as that shell asked. The tests
    install the handler a terminal's Python has.
    """
    saved = []

    def install(sig, fn):
        saved.append((sig, signal.signal(sig, fn)))

    yield install
    for sig, fn in reversed(saved):
        signal.signal(sig, fn)


def interrupt_a_long_curve(sig):
    """Runs the curve of a random 128-letter instance (tens of seconds on
    two cores) while another process sends sig after one second, as a
    terminal's Ctrl-C comes from outside. Returns (the exception raised,
    the curve's points, the seconds the call took)."""
    # Sent from a Python thread (threading.Timer), a signal can be lost on
    # CPython 3.11: that thread goes on running bytecode after os.kill and
    # clears the interpreter's shared "pending" flag, which only the main
    # thread may act on, so the main thread never looks at the signal.
    prior, utility = random_instance(128, 1)
    result, raised = None, None
    started = time.monotonic()
    killer = subprocess.Popen(["sh", "-c", "sleep 1; kill -%d %d" % (sig, os.getpid())])
    try:
        result = pmlopt.curve(prior, utility)
    except BaseException as e:
        raised = e
    finally:
        stopped = time.monotonic()
        killer.wait()
    return raised, result, stopped - started


def test_ctrl_c_interrupts_a_long_curve(handler):
    handler(signal.SIGINT, signal.default_int_handler)
    raised, result, seconds = interrupt_a_long_curve(signal.SIGINT)
    assert isinstance(raised, KeyboardInterrupt), "the curve ended with %r and %s points after %.2f s" % (
        raised, None if result is None else len(result), seconds)
    assert result is None
    assert seconds < 6
    # Go had returned before the exception was raised.
    assert _lib._in_go == 0
    # The library keeps working after an interrupted call.
    sol = pmlopt.solve([0.5, 0.5], [[1, 0], [0, 1]], epsilon=2)
    assert sol.worst_case_order == 2


class Stop(Exception):
    pass


def test_an_exception_from_a_signal_handler_cancels_the_call(handler):
    # A handler that raises something other than KeyboardInterrupt (a
    # service's SIGTERM handler raising SystemExit) stops Go as Ctrl-C does.
    def stop(sig, frame):
        raise Stop()

    handler(signal.SIGUSR1, stop)
    raised, result, seconds = interrupt_a_long_curve(signal.SIGUSR1)
    assert isinstance(raised, Stop), "the curve ended with %r after %.2f s" % (raised, seconds)
    assert result is None
    assert seconds < 6
    # Go had returned before the exception was raised.
    assert _lib._in_go == 0


def test_threads_run_solves_at_once():
    prior, utility = random_instance(12, 5)
    budgets = [0.2, 0.5, 1.0, 2.0]
    alone = [pmlopt.solve(prior, utility, epsilon=e, objective="expected-utility") for e in budgets]
    with ThreadPoolExecutor(4) as ex:
        together = list(ex.map(lambda e: pmlopt.solve(prior, utility, epsilon=e, objective="expected-utility"),
                               budgets))
    for a, b in zip(alone, together):
        assert a.expected_utility == pytest.approx(b.expected_utility, abs=1e-12)
        np.testing.assert_allclose(a.mechanism, b.mechanism, atol=1e-12)


def test_the_gil_is_released_while_go_works():
    # A curve on 64 random letters takes seconds; while it runs in another
    # thread this one must be able to run Python. Were the GIL held during
    # the foreign call, this thread could not run until it returned.
    prior, utility = random_instance(64, 2)
    started = threading.Event()
    box = {}

    def work():
        started.set()
        box["points"] = pmlopt.curve(prior, utility, workers=1)

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    running = 0
    for _ in range(100):
        time.sleep(0.01)
        running += "points" not in box
    t.join()
    assert running >= 20
    assert len(box["points"]) == 64


def test_plots(testdata):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    p = pmlopt.load(testdata / "counting-query.yaml")
    sol = p.solve()
    ax = sol.plot_heatmap()
    assert ax.images and ax.images[0].get_array().shape == sol.mechanism.shape
    ax = pmlopt.plot_curve(p.curve())
    assert len(ax.lines) == 2
    ax = pmlopt.plot_curve(pmlopt.curve(p.prior, p.utility, objective="expected-utility", epsilons=[0.5, 1.0]))
    assert len(ax.lines) == 1
