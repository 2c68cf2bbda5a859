# SPDX-License-Identifier: MIT
"""python3 -m pmu ARGS: the pmu tool of this package (pip installs it inside the package)."""
import os
import sys

from . import _tool

if __name__ == "__main__":
    tool = _tool()
    os.execv(tool, [tool] + sys.argv[1:])
