"""A large sparse mechanism as the CLI writes it (--json's sparse rows, a
problem file's mechanism_sparse, --mechanism-out .csv and .npy) reads back in
Python as the same matrix, bit for bit."""

import json
import subprocess

import numpy as np

import pmlopt


def dense(doc):
    """The matrix of --json's sparse form {"shape": [N, M], "sparse_rows": [...]},
    read here from its definition (docs/cli.md)."""
    a = np.zeros(doc["shape"])
    for i, row in enumerate(doc["sparse_rows"]):
        a[i, np.asarray(row[0::2], dtype=int)] = row[1::2]
    return a


def test_sparse_outputs_agree(cli, tmp_path):
    grid, out = tmp_path / "g8.yaml", tmp_path / "out.yaml"
    npy, csv = tmp_path / "m.npy", tmp_path / "m.csv"
    subprocess.run([cli, "new", "--grid", "8x8", "--utility", "euclid", "--prior", "uniform", "--epsilon", "1",
                    "--objective", "expected-utility", "-o", str(grid)], check=True, capture_output=True)
    r = subprocess.run([cli, "solve", str(grid), "--json", "--out", str(out), "--mechanism-out", str(npy)],
                       check=True, capture_output=True, text=True)
    subprocess.run([cli, "solve", str(grid), "--mechanism-out", str(csv)], check=True, capture_output=True)
    doc = json.loads(r.stdout)
    m = doc["mechanism"]
    assert isinstance(m, dict) and m["shape"] == [64, 64], "a 64×64 optimum using few outputs is written sparse"
    a = dense(m)
    np.testing.assert_allclose(a.sum(axis=1), 1, atol=1e-9)
    assert np.count_nonzero(a) * 4 < a.size

    np.testing.assert_array_equal(np.load(npy), a)
    with open(csv) as f:
        assert f.readline() == "row,col,value\n"
    t = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    b = np.zeros((64, 64))
    b[t[:, 0].astype(int), t[:, 1].astype(int)] = t[:, 2]
    np.testing.assert_array_equal(b, a)

    # The library reads solve --out's mechanism_sparse into the same matrix.
    assert "mechanism_sparse:" in out.read_text()
    p = pmlopt.load(out)
    np.testing.assert_array_equal(np.asarray(p.mechanism), a)
    assert p.audit()["pml"] == doc["epsilon"]


def test_verify_reads_sparse_json(cli, tmp_path):
    grid, js = tmp_path / "g8.yaml", tmp_path / "solved.json"
    subprocess.run([cli, "new", "--grid", "8x8", "--utility", "euclid", "--prior", "uniform", "--epsilon", "1",
                    "--objective", "expected-utility", "-o", str(grid)], check=True, capture_output=True)
    r = subprocess.run([cli, "solve", str(grid), "--json"], check=True, capture_output=True, text=True)
    js.write_text(r.stdout)
    assert isinstance(json.loads(r.stdout)["mechanism"], dict), "the 64×64 optimum is written sparse"
    v = pmlopt.verify(js, problem=grid)
    assert v["verified"], v["claims"]
    # The same claims, checked against a mechanism with one entry moved, fail.
    doc = json.loads(r.stdout)
    row = doc["mechanism"]["sparse_rows"][0]
    row[1], row[3] = row[1] + 1e-3, row[3] - 1e-3
    js.write_text(json.dumps(doc))
    assert not pmlopt.verify(js, problem=grid)["verified"]
