#!/bin/sh
# Prepares the riscv64 tier: host tools (apt-get, when root) and, once, a cache
# holding Debian trixie's riscv64 kernel 6.12, a static riscv64 busybox and
# OpenSBI 1.6's fw_dynamic.bin. Debian 12 has no riscv64 in its main archive:
# they come from trixie through a private apt configuration under the cache
# (test/debfetch.sh), so the host's apt sources stay untouched.
#   usage: test/riscv64/setup.sh [--refresh]   (--refresh fetches the newest again)
#   cache: ${PMU_RISCV64_CACHE:-$HOME/.cache/libpmu-riscv64}
# Exit status: 0 ready; 77 cannot be had here (the last line says why); 1 error.
# Idempotent: with the tools installed and the cache full it touches nothing.
set -u
cd "$(dirname "$0")/../.." || exit 1

cache=${PMU_RISCV64_CACHE:-${HOME:-/root}/.cache/libpmu-riscv64}
refresh=0
[ "${1:-}" = "--refresh" ] && refresh=1

say() { echo "riscv64 setup: $*"; }
skip() { echo "SKIP: $*"; exit 77; }
as_root() { [ "$(id -u)" -eq 0 ]; }

# 1. Host tools.
need=
command -v qemu-system-riscv64 >/dev/null || need="$need qemu-system-misc"
command -v riscv64-linux-gnu-gcc >/dev/null || need="$need gcc-riscv64-linux-gnu"
[ -e /usr/riscv64-linux-gnu/lib/libc.a ] || need="$need libc6-dev-riscv64-cross"
command -v cpio >/dev/null || need="$need cpio"
if [ -n "$need" ]; then
	as_root || skip "missing host packages:$need (run test/riscv64/setup.sh as root, or apt-get install$need)"
	command -v apt-get >/dev/null || skip "missing host packages:$need and no apt-get on this machine"
	say "apt-get update"
	apt-get update -q >/dev/null 2>&1 || say "apt-get update reported errors (continuing)"
	say "apt-get install$need"
	# shellcheck disable=SC2086
	log=$(mktemp) || skip "cannot make a temporary file for apt-get's output"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >"$log" 2>&1 || {
		tail -n 5 "$log"
		rm -f "$log"
		skip "apt-get install$need failed (no Debian mirror reachable?)"
	}
	rm -f "$log"
fi

# 2. Cache: kernel Image, busybox, OpenSBI.
have_cache() {
	[ -s "$cache/Image-6.12" ] && [ -x "$cache/busybox" ] && [ -s "$cache/fw_dynamic.bin" ]
}
if [ $refresh -eq 0 ] && have_cache; then
	say "ready ($(tr '\n' ' ' <"$cache/VERSIONS" 2>/dev/null))"
	exit 0
fi
command -v apt-get >/dev/null || skip "no apt-get: cannot download Debian's riscv64 kernel into $cache"
mkdir -p "$cache" || skip "cannot create the cache directory $cache"
tmp=$(mktemp -d "$cache/.dl.XXXXXX") || skip "cannot write to $cache"
trap 'rm -rf "$tmp"' EXIT INT TERM

say "downloading trixie's riscv64 kernel 6.12, busybox-static and opensbi"
[ $refresh -eq 1 ] && export PMU_DEBFETCH_UPDATE=1
test/debfetch.sh "$cache/apt" riscv64 "trixie" "$tmp/x" \
	'^linux-image-6\.12\.[0-9]+\+deb13-riscv64$' busybox-static opensbi >"$tmp/got" 2>"$tmp/err" || {
	sed 's/^/  /' "$tmp/err"
	skip "downloading trixie's riscv64 packages failed ($(tail -n 1 "$tmp/err"))"
}
img=$(ls "$tmp"/x/boot/vmlinux-* "$tmp"/x/boot/vmlinuz-* 2>/dev/null | head -n 1)
fw=$tmp/x/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
bb=$(ls "$tmp"/x/usr/bin/busybox "$tmp"/x/bin/busybox 2>/dev/null | head -n 1)
[ -s "$img" ] || skip "the riscv64 kernel package holds no /boot/vmlinux-*"
[ -s "$fw" ] || skip "opensbi holds no generic/fw_dynamic.bin"
[ -s "$bb" ] || skip "busybox-static:riscv64 holds no busybox"
# Debian's riscv64 kernel is an Image with an EFI stub: -kernel takes it as is.
mv "$img" "$cache/Image-6.12" && mv "$fw" "$cache/fw_dynamic.bin" &&
	cp "$bb" "$cache/busybox" && chmod 755 "$cache/busybox" || exit 1
ver=${img##*/vmli??x-}
{
	echo "6.12 $ver ($(grep '^linux-image' "$tmp/got"))"
	echo "opensbi $(sed -n 's/^opensbi //p' "$tmp/got")"
	echo "busybox $(sed -n 's/^busybox-static //p' "$tmp/got")"
} >"$cache/VERSIONS"
have_cache || skip "the cache $cache is incomplete after downloading"
say "ready ($(tr '\n' ' ' <"$cache/VERSIONS"))"
exit 0
