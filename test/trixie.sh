#!/bin/sh
# The trixie tier: a user's first hour on GitHub's ubuntu-latest (Ubuntu 26.04, packaged like Debian
# 13), in a Debian 13 root (test/trixie/setup.sh: mmdebstrap, cached) with only its gcc 14, make,
# pkg-config, Python 3.13 and pip. Each flow starts from a fresh tree of its own:
#   readme     the README's quick start (make && ./build/pmu check), warnings failing the build
#   install    make install PREFIX=$HOME/.local, the installed pmu check, a program linked as
#              docs/install.md says (shared and static), the Python package from the user site
#   pip        pip install . into a virtual environment: the extension
#   no-headers the quick start and make install where Python's headers are not installed: the
#              package is ctypes alone
#   emulated   the emulated tier (test/emulated.sh) with the root's qemu-user (static: refused,
#              saying so) and valgrind (libpmu-valgrind counts)
#   ci         docs/ci.md's gates (a program's, pytest's per test), as its recipes for
#              ubuntu-latest run them
# Runs as root (chroot), each flow in a mount namespace of its own. Prints "trixie: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
T_TIER=trixie T_PREFIX=trixie/
. test/lib.sh
[ "$(id -u)" -eq 0 ] || { sk root "the Debian 13 root is entered with chroot, as root"; closing; exit 0; }
command -v unshare >/dev/null || { sk root "unshare (util-linux) is not installed"; closing; exit 0; }
root=${PMU_TRIXIE_CACHE:-${HOME:-/root}/.cache/libpmu-trixie}/root
if ! test/trixie/setup.sh > "$T_OUT" 2>&1; then
	sk root "$(sed -n 's/^SKIP: //p' "$T_OUT" | tail -n 1)"
	closing
	exit 0
fi
echo "# Debian 13: $(cat "$root/../ready")"
w=/w.$$
trap 'rm -rf "$root$w" "$T_OUT"' EXIT
mkdir -p "$root$w/home" || exit 1
for f in readme install pip nohdr emulated ci; do
	fresh_tree "$PWD" && mv "$tree" "$root$w/$f" || { fail=1; closing "cannot copy the tree"; exit 1; }
done

# inroot [--no-python-headers] DIR CMD: CMD (sh) in $w/DIR of the root, within the time limit, with
# the environment a runner's shell has; --no-python-headers hides Python's headers for it.
inroot() {
	hide=
	[ "$1" = --no-python-headers ] && hide=1 && shift
	lim unshare --mount --propagation private sh -c '
		r=$1 hide=$2 dir=$3 cmd=$4
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" || exit 1
		if [ -n "$hide" ]; then for i in "$r"/usr/include/python3*; do mount -t tmpfs none "$i" || exit 1; done; fi
		exec chroot "$r" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="'$w'/home" WERROR=1 sh -ec "cd '$w'/$dir && $cmd"
	' sh "$root" "$hide" "$@"
}
h=$w/home
run readme inroot readme 'make && ./build/pmu check'
run install inroot install "make install PREFIX=$h/.local && $h/.local/bin/pmu version"
run installed-check inroot install "cd / && $h/.local/bin/pmu check"
run link-shared inroot install "export PKG_CONFIG_PATH=$h/.local/lib/pkgconfig &&
	cc examples/count.c \$(pkg-config --cflags --libs libpmu) -Wl,-rpath,$h/.local/lib -o $h/count && $h/count task-clock"
run link-static inroot install "export PKG_CONFIG_PATH=$h/.local/lib/pkgconfig &&
	cc -static examples/count.c \$(pkg-config --static --cflags --libs libpmu) -o $h/count-static && $h/count-static task-clock"
run python-user-site inroot install "cd / && python3 -c 'import pmu; assert pmu.backend() == \"extension\", pmu.backend(True)
assert pmu.library.startswith(\"$h/.local/lib/python3\"), pmu.library'"
run pip inroot pip "python3 -m venv --system-site-packages $h/venv && $h/venv/bin/pip install -q --no-build-isolation --no-index . &&
	cd / && $h/venv/bin/python -c 'import pmu; assert pmu.backend() == \"extension\", pmu.backend(True)
with pmu.open(\"task-clock\") as s: assert s.read()[\"task-clock\"] > 0'"
run no-headers inroot --no-python-headers nohdr "! ls /usr/include/python3*/Python.h 2>/dev/null && make && ./build/pmu check &&
	make install PREFIX=$h/nohdr > install.out 2>&1 && grep -q '^libpmu: no Python.h for python3 ' install.out &&
	cd / && PYTHONPATH=\$(echo $h/nohdr/lib/python3*/site-packages) python3 -c 'import pmu; assert pmu.backend() == \"ctypes\", pmu.backend(True)'"
T_LIMIT=1200 run emulated inroot emulated "PMU_IN_ROOT=1 sh test/emulated.sh"
# docs/ci.md's sh blocks, as written: the gate of its workflow, and the per-test gate of pytest
# through the package pip installs (whose pmu emulate counts under Valgrind here).
awk '/^```sh$/ { n++; inb = (n == 1); next } /^```/ { inb = 0 } inb' docs/ci.md > "$root$w/ci/recipe.sh"
awk '/^```sh$/ { n++; inb = (n == 2); next } /^```/ { inb = 0 } inb' docs/ci.md > "$root$w/ci/recipe-pytest.sh"
run ci-recipe inroot ci "bash -e -o pipefail recipe.sh"
run ci-recipe-pytest inroot ci "bash -e -o pipefail recipe-pytest.sh"
closing
[ $fail -eq 0 ]
