#!/bin/sh
# Prepares a Debian 13 (trixie) root for the flows a user of GitHub's ubuntu-latest runs (Ubuntu
# 26.04 takes its toolchain, QEMU and valgrind packaging from Debian 13): mmdebstrap, once, into a
# cache, from the host's Debian mirror, within a time limit.
#   usage: test/trixie/setup.sh [--refresh]
#   cache: ${PMU_TRIXIE_CACHE:-$HOME/.cache/libpmu-trixie}/root (the root, unpacked)
# Exit status: 0 ready; 77 cannot be had here (the last line says why).
set -u
cache=${PMU_TRIXIE_CACHE:-${HOME:-/root}/.cache/libpmu-trixie}
root=$cache/root
skip() { echo "SKIP: $*"; exit 77; }
[ "${1:-}" = --refresh ] && rm -rf "$root" "$cache/ready"
if [ -f "$cache/ready" ] && [ -x "$root/usr/bin/gcc" ]; then
	echo "trixie setup: ready ($(cat "$cache/ready"))"
	exit 0
fi
# What ubuntu-latest gives a C project's workflow: the compiler, make, pkg-config, Python with its
# headers and pip's offline build, QEMU's user mode and valgrind.
. "$(dirname "$0")/mkroot.sh"
mkroot "$root" gcc,make,libc6-dev,pkg-config,python3,python3-dev,python3-venv,python3-pip,python3-setuptools,python3-wheel,python3-pytest,valgrind,qemu-user root
v=$(chroot "$root" sh -c 'gcc -dumpfullversion; python3 -c "import sys; print(sys.version.split()[0])"; dpkg-query -W -f="\${Version}" qemu-user valgrind' | tr '\n' ' ')
echo "gcc, python, qemu-user, valgrind: $v" > "$cache/ready"
echo "trixie setup: ready ($(cat "$cache/ready"))"
