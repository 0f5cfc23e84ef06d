"""Builds the pmlopt Python package: the Go library compiled as a C shared
library (go build -buildmode=c-shared) beside the ctypes wrapper.

The build needs Go (1.22 or later) with cgo and a C compiler, and the Go
module cache holding pmlopt's dependencies (go mod download, or any earlier
go build or go test of the checkout): it runs offline. PMLOPT_GO names the go
binary when it is not "go" on PATH. The wheel is platform-specific but not
tied to a Python version: the library is loaded with ctypes. numpy is
required at run time (Debian's python3-numpy, seen by a venv made with
--system-site-packages).
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - wheel is a dependency of pip on Debian
    bdist_wheel = None

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LIB = "_libpmlopt.so"


def build_library(dest):
    """Compiles ../cmd/libpmlopt into dest/_libpmlopt.so."""
    if not (ROOT / "go.mod").is_file() or not (ROOT / "cmd" / "libpmlopt").is_dir():
        raise RuntimeError(
            "pmlopt: the Go sources are not beside python/ (%s): build from a checkout of pmlopt" % ROOT
        )
    go = os.environ.get("PMLOPT_GO") or shutil.which("go")
    if go is None:
        raise RuntimeError("pmlopt: building the package needs Go on PATH (or PMLOPT_GO naming it)")
    env = dict(os.environ, CGO_ENABLED="1")
    dest = Path(dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / LIB
    subprocess.run(
        [go, "build", "-trimpath", "-buildmode=c-shared", "-o", str(out), "./cmd/libpmlopt"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    header = dest / "_libpmlopt.h"
    if header.exists():
        header.unlink()


class BuildPy(build_py):
    """build_py that also compiles the Go library into the package."""

    def run(self):
        super().run()
        build_library(Path(self.build_lib).resolve() / "pmlopt")


class BinaryDistribution(Distribution):
    """A distribution with a compiled library: the wheel is not pure."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildPy}
if bdist_wheel is not None:

    class BdistWheel(bdist_wheel):
        """Tags the wheel py3-none-<platform>: any Python 3, this platform."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = BdistWheel

setup(
    name="pmlopt",
    version="0.1.0",
    description="Optimal privacy mechanisms under pointwise maximal leakage (Go library, numpy interface)",
    packages=["pmlopt"],
    python_requires=">=3.9",
    # numpy is needed at run time but not declared: pip wheel would
    # otherwise want a numpy wheel, which Debian's python3-numpy is not,
    # and the offline build would fail.
    extras_require={"plot": ["matplotlib"]},
    distclass=BinaryDistribution,
    cmdclass=cmdclass,
    zip_safe=False,
)
