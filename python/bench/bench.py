"""Times pmlopt.solve from Python against the same Go call (gosolve/).

Two comparisons: (1) within each Python call, its whole time against the
time it spent in Go on the operation (the library reports it: building the
problem from the buffers, pmlopt.Solve, the result), which no other load on
the machine can skew; (2) the Python call against the same solve in a Go
program (gosolve/), run alternately.

A random N×M problem (Dirichlet prior, standard normal utilities, fixed
seed), expected utility under an ε-PML budget: the Go program reads the
same numbers from raw float64 files and times pmlopt.Solve; this script
times pmlopt.solve on numpy arrays, repetitions interleaved so that both
see the same load. Run from the repository root with the package installed:

    .venv/bin/python python/bench/bench.py --n 1000 --reps 3
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import pmlopt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="letters N = M")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    prior = rng.dirichlet(np.ones(a.n))
    utility = rng.standard_normal((a.n, a.n))
    with tempfile.TemporaryDirectory() as d:
        prior.astype("<f8").tofile(os.path.join(d, "prior.f64"))
        utility.astype("<f8").tofile(os.path.join(d, "utility.f64"))
        exe = os.path.join(d, "gosolve")
        subprocess.run(["go", "build", "-o", exe, "./python/bench/gosolve"], cwd=ROOT, check=True)
        go_s, py_s, in_go, eus = [], [], [], []
        for k in range(a.reps):
            start = time.perf_counter()
            sol = pmlopt.solve(prior, utility, epsilon=a.epsilon, objective="expected-utility")
            py_s.append(time.perf_counter() - start)
            in_go.append(pmlopt._lib.timing.seconds)
            eus.append(sol.expected_utility)
            print("rep %d: Python call %.3f s, of which in Go %.3f s" % (k + 1, py_s[-1], in_go[-1]), flush=True)
            out = subprocess.run([exe, "-dir", d, "-epsilon", str(a.epsilon), "-reps", "1"], check=True,
                                 capture_output=True, text=True).stdout
            r = json.loads(out)
            go_s.append(r["seconds"][0])
            go_eu = r["expected_utility"]
            print("rep %d: Go program %.3f s" % (k + 1, go_s[-1]), flush=True)
    g, p = statistics.median(go_s), statistics.median(py_s)
    print("N = M = %d, expected utility under %g-PML, %d repetitions" % (a.n, a.epsilon, a.reps))
    over = [ps - gs for ps, gs in zip(py_s, in_go)]
    print("(1) in each Python call: Go %s s, the rest %s s: %s of the Go time" % (
        " ".join("%.3f" % s for s in in_go), " ".join("%.4f" % s for s in over),
        " ".join("%.2f%%" % (100 * o / gs) for o, gs in zip(over, in_go))))
    print("(2) Go call (pmlopt.Solve):     median %.3f s  %s" % (g, " ".join("%.3f" % s for s in go_s)))
    print("    Python call (pmlopt.solve): median %.3f s  %s" % (p, " ".join("%.3f" % s for s in py_s)))
    print("    Python / Go: %.3f" % (p / g))
    if abs(eus[-1] - go_eu) > 1e-9 * max(1, abs(go_eu)):
        print("expected utilities differ: Go %r, Python %r" % (go_eu, eus[-1]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
