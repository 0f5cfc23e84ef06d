"""From a CSV file to a plotted trade-off curve and a privatized column.

testdata/survey.csv holds 40 survey answers; its column `children` (0 to 4)
is the secret. This script estimates the prior from the column, takes the
utility −|x − y| (a release far from the truth is worth less), draws the
optimal worst-case curve beside the utility-safe one, solves for the best
worst case within a PML budget of 1 nat, audits the mechanism, and writes
the CSV with the column privatized (children_private).

    .venv/bin/python python/examples/survey.py testdata/survey.csv out/

The draws come from the operating system's cryptographic source; --seed
makes them reproducible, for trying the script, never for a real release.
"""

import argparse
import csv
import os
import sys

import numpy as np

import pmlopt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="input CSV with a header")
    ap.add_argument("outdir", help="directory for curve.png and the privatized CSV")
    ap.add_argument("--column", default="children")
    ap.add_argument("--epsilon", type=float, default=1.0, help="PML budget (nats)")
    ap.add_argument("--seed", type=int, default=None, help="reproducible draws (tests only)")
    a = ap.parse_args()

    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    values = np.array([int(r[a.column]) for r in rows])
    letters = np.unique(values)  # the inputs, sorted
    prior = np.array([np.mean(values == x) for x in letters])
    utility = -np.abs(letters[:, None] - letters[None, :]).astype(float)

    # The trade-off: least PML per worst-case utility value, optimal and utility-safe.
    points = pmlopt.curve(prior, utility, objective="worst-case-value")
    os.makedirs(a.outdir, exist_ok=True)
    try:
        import matplotlib

        matplotlib.use("Agg")
        ax = pmlopt.plot_curve(points, title="%s: PML against the worst case" % a.column)
        ax.figure.savefig(os.path.join(a.outdir, "curve.png"))
        print("wrote", os.path.join(a.outdir, "curve.png"))
    except ImportError:
        print("matplotlib is not installed: no plot")
    for pt in points:
        print("worst case ≥ %g: optimal ε in [%.4f, %.4f], utility-safe ε %.4f" % (
            pt["threshold"], pt["optimal_epsilon_lower"], pt["optimal_epsilon"], pt["safe_epsilon"]))

    sol = pmlopt.solve(prior, utility, epsilon=a.epsilon, objective="worst-case-value")
    report = pmlopt.audit(prior, sol.mechanism, measure="pml", epsilon=a.epsilon)
    print("budget %g: worst case %g at PML %.6f (audit: %s)" % (
        a.epsilon, sol.worst_case_value, report["pml"], "within" if report["within_budget"] else "EXCEEDS"))

    index = {x: i for i, x in enumerate(letters)}
    drawn = pmlopt.sample(sol.mechanism, [index[v] for v in values], seed=a.seed)
    out = os.path.join(a.outdir, "private.csv")
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) + [a.column + "_private"])
        w.writeheader()
        for r, j in zip(rows, drawn):
            w.writerow(dict(r, **{a.column + "_private": int(letters[j])}))
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
