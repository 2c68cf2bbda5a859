# SPDX-License-Identifier: MIT
"""The build steps pyproject.toml cannot state: libpmu.so.0, the extension pmu._pmu and the pmu tool,
made by the Makefile from this tree into the package, which then needs nothing outside it. Where
there is no C compiler, the package alone: ctypes over an installed libpmu.so.0 (pmu.backend())."""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILT = ("libpmu.so.0", "pmu", "libpmu-qemu.so")   # by make, beside the extension
VG_TOOL = "libpmu-valgrind"   # too, where Valgrind's tool libraries are (GPL-2.0+: emulation/valgrind/COPYING)


def version():
    """The version, from include/pmu.h (its one definition)."""
    with open(os.path.join(ROOT, "include", "pmu.h")) as f:
        h = f.read()
    return ".".join(re.search(r"#define PMU_VERSION_%s (\d+)" % k, h).group(1) for k in ("MAJOR", "MINOR", "PATCH"))


class BuildPy(build_py):
    """The package, and _version.py: the library version it was built for, checked at import."""

    def run(self):
        super().run()
        with open(os.path.join(self.build_lib, "pmu", "_version.py"), "w") as f:
            f.write('__version__ = "%s"\n' % version())


class BuildLibrary(build_ext):
    """make lib python pmu libpmu-qemu.so valgrind-tool, into the package: the extension finds
    libpmu.so.0 beside it ($ORIGIN), and the tool its QEMU plugin and Valgrind tool (python -m pmu
    emulate)."""

    def run(self):
        out = os.path.join(os.path.abspath(self.build_lib), "pmu")
        for f in glob.glob(os.path.join(out, "_pmu*.so")) + [os.path.join(out, n) for n in BUILT + (VG_TOOL,)]:
            if os.path.exists(f):   # an earlier build's, which this one may not make
                os.remove(f)
        cc = os.environ.get("CC", "cc").split()[0]
        if not shutil.which("make") or not shutil.which(cc):
            print("libpmu: no make or %s here: the package alone, over an installed libpmu.so.0 "
                  "(pmu.backend() is \"ctypes\")" % cc, file=sys.stderr)
            return
        tmp = os.path.abspath(os.path.join(self.build_temp, "make"))
        subprocess.run(["make", "-s", "-C", ROOT, "O=" + tmp, "PYTHON=" + sys.executable,
                        "PY_RUNPATH=-Wl,-rpath,'$$ORIGIN'", "lib", "python", os.path.join(tmp, "pmu"),
                        os.path.join(tmp, "libpmu-qemu.so"), "valgrind-tool"],
                       check=True)
        os.makedirs(out, exist_ok=True)
        mods = glob.glob(os.path.join(tmp, "python", "pmu", "_pmu*.so"))
        if not mods:
            print("libpmu: no Python.h for %s (Debian: python3-dev): the package uses ctypes alone"
                  % sys.executable, file=sys.stderr)
        vg = [os.path.join(tmp, VG_TOOL)] if os.path.exists(os.path.join(tmp, VG_TOOL)) else []
        for f in [os.path.join(tmp, n) for n in BUILT] + mods + vg:
            shutil.copy(f, out)   # the library's file itself, not its symbolic link

    def get_outputs(self):
        return []


class PlatformDistribution(Distribution):
    """A wheel for this platform: it carries compiled code, though setuptools builds none of it."""

    def has_ext_modules(self):
        return True


setup(version=version(), cmdclass={"build_py": BuildPy, "build_ext": BuildLibrary},
      distclass=PlatformDistribution, options={"build": {"build_base": "build/setuptools"}})
