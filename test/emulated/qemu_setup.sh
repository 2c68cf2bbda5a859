#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds, once, a QEMU >= 9 that loads plugins: the x86_64 linux-user target of Debian 13's own
# qemu source package (its packaged qemu-user is static and cannot load plugins), configured
# with --enable-plugins, in a Debian 13 root of its own (mmdebstrap) that holds the build's
# dependencies, all from Debian. The emulated tier runs libpmu-qemu under it in that root.
#   usage: test/emulated/qemu_setup.sh [--refresh]
#   cache: ${PMU_QEMU_CACHE:-$HOME/.cache/libpmu-qemu}/root, with /opt/qemu/qemu-x86_64 in it
# Exit status: 0 ready; 77 cannot be had here (the last line says why).
set -u
cache=${PMU_QEMU_CACHE:-${HOME:-/root}/.cache/libpmu-qemu}
root=$cache/root
ver=${PMU_QEMU_DEBVER:-10.0.13+ds-0+deb13u1}	# Debian 13's qemu, as its qemu-user
skip() { echo "SKIP: $*"; exit 77; }
say() { echo "qemu setup: $*"; }
[ "${1:-}" = --refresh ] && rm -rf "$root" "$cache/ready"
if [ -f "$cache/ready" ] && [ -x "$root/opt/qemu/qemu-x86_64" ]; then
	say "ready ($(cat "$cache/ready"))"
	exit 0
fi
src=${PMU_DEBIAN_MIRROR:-http://deb.debian.org/debian}	# where the source package is fetched from
if [ ! -d "$root/usr/lib/python3/dist-packages/pycotap" ]; then
	. "$(dirname "$0")/../trixie/mkroot.sh"
	mkroot "$root" gcc,make,libc6-dev,pkg-config,meson,python3-pycotap,ninja-build,libglib2.0-dev,flex,bison,python3-venv,curl,ca-certificates,xz-utils "build root"
fi
up=${ver%-*}
say "fetching and building Debian's qemu $ver, x86_64 linux-user with plugins (a few minutes)"
# The orig tarball is checked against the source package's description; Debian's +ds tarball
# carries no meson wheels, so configure takes Debian 13's meson.
timeout -k 30 "${PMU_QEMU_TIMEOUT:-2400}" unshare --mount --propagation private sh -c '
	r=$1 ver=$2 up=$3 mirror=$4
	mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" || exit 1
	exec chroot "$r" env -i PATH=/usr/bin:/bin HOME=/root sh -ec "
		rm -rf /src && mkdir /src && cd /src
		for f in qemu_$ver.dsc qemu_$up.orig.tar.xz; do curl -fsS -o \$f $mirror/pool/main/q/qemu/\$f; done
		sum=\$(awk \"/^Checksums-Sha256:/{s=1; next} /^[^ ]/{s=0} s && \\\$3 == \\\"qemu_$up.orig.tar.xz\\\" {print \\\$1}\" qemu_$ver.dsc)
		echo \"\$sum  qemu_$up.orig.tar.xz\" | sha256sum -c --quiet
		tar -xJf qemu_$up.orig.tar.xz && cd qemu-*/ && mkdir b && cd b
		../configure --target-list=x86_64-linux-user --enable-plugins --disable-docs --disable-tools \
			--disable-werror --disable-debug-info --disable-install-blobs
		ninja qemu-x86_64
		mkdir -p /opt/qemu && cp qemu-x86_64 /opt/qemu/ && cd / && rm -rf /src"
' sh "$root" "$ver" "$up" "$src" > "$cache/build.log" 2>&1 || {
	tail -n 8 "$cache/build.log"
	skip "building QEMU failed or took too long: $cache/build.log"
}
chroot "$root" /opt/qemu/qemu-x86_64 --version | head -n 1 > "$cache/ready" || skip "the QEMU built does not run"
say "ready ($(cat "$cache/ready"))"
