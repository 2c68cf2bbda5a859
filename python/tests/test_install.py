# SPDX-License-Identifier: MIT
"""The package as pip installs it (test/python.sh makes a fresh virtual environment), and the errors
of a package that finds no library, or one of another version."""
import os
import shutil
import subprocess
import sys

import pytest

import pmu

HERE = os.path.dirname(os.path.abspath(__file__))
in_venv = pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="not in a virtual environment "
                             "(test/python.sh runs this file in one, after pip install)")


def run(code, env=None, cwd="/"):
    """python -c code from cwd, with no PMU_*, LD_LIBRARY_PATH or PYTHONPATH unless env gives them."""
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("PMU_") and k not in ("LD_LIBRARY_PATH", "PYTHONPATH")}
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, cwd=cwd)


@in_venv
def test_import_from_root_with_no_environment():
    p = run("import pmu, os; print(pmu.backend(), pmu.version(), os.path.dirname(pmu.library) == "
            "os.path.dirname(pmu.__file__))")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["extension", pmu.version(), "True"], p.stdout


@in_venv
def test_installed_package_holds_tool_and_version():
    from pmu import _version
    assert _version.__version__ == pmu.version()
    p = subprocess.run([sys.executable, "-m", "pmu", "--version"], capture_output=True, text=True, cwd="/")
    assert p.returncode == 0 and pmu.version() in p.stdout, p.stderr


@in_venv
def test_pytest_plugin_registered():
    from importlib.metadata import entry_points
    eps = entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    assert "pmu.pytest_plugin" in [ep.value for ep in group]


def copy_package(tmp_path, version=None):
    """The package's Python files alone in tmp_path/pmu, with _version.py saying version."""
    src = os.path.dirname(pmu.__file__)
    dst = tmp_path / "pmu"
    dst.mkdir()
    for f in os.listdir(src):
        if f.endswith(".py") and f != "_version.py":
            shutil.copy(os.path.join(src, f), str(dst))
    if version:
        (dst / "_version.py").write_text("__version__ = %r\n" % version)
    return str(tmp_path)


def test_other_library_version_is_named(tmp_path):
    lib = os.path.realpath(pmu.library)
    p = run("import pmu", env={"PYTHONPATH": copy_package(tmp_path, "0.0.1"), "PMU_LIBRARY": lib})
    assert p.returncode != 0
    err = p.stderr.strip().splitlines()[-1]
    assert "ImportError" in err and "libpmu 0.0.1" in err and "libpmu %s" % pmu.version() in err
    assert lib in err and "pip install ." in err, err


def test_no_library_is_named(tmp_path):
    p = run("import pmu", env={"PYTHONPATH": copy_package(tmp_path), "PMU_LIBRARY": "/nonexistent/libpmu.so.0"})
    if p.returncode == 0:
        pytest.skip("a libpmu.so.0 is installed in the system's directories")
    err = p.stderr.strip().splitlines()[-1]
    assert "libpmu.so.0 could not be loaded" in err and "/nonexistent/libpmu.so.0" in err, err
    assert "PMU_LIBRARY" in err and "pip install ." in err
