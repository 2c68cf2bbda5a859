#!/bin/sh
# Prepares the arm64 tier: host tools (apt-get, when root) and, once, a cache
# holding Debian's arm64 kernels 6.1 and 6.12 and a static arm64 busybox, and
# Debian 11's 5.10 (older than arm64's user access), fetched from bullseye
# with a private apt configuration (test/debfetch.sh). Without 5.10 the tier
# still runs: its configurations then skip (the reason is in $cache/5.10.missing).
#   usage: test/arm64/setup.sh [--refresh]   (--refresh fetches the newest again)
#   cache: ${PMU_ARM64_CACHE:-$HOME/.cache/libpmu-arm64}
# Exit status: 0 ready; 77 cannot be had here (the last line says why); 1 error.
# Idempotent: with the tools installed and the cache full it touches nothing.
set -u

cache=${PMU_ARM64_CACHE:-${HOME:-/root}/.cache/libpmu-arm64}
refresh=0
[ "${1:-}" = "--refresh" ] && refresh=1

say() { echo "arm64 setup: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

as_root() { [ "$(id -u)" -eq 0 ]; }

updated=0
apt_update() {
	[ $updated -eq 1 ] && return 0
	updated=1
	say "apt-get update"
	# A failing unrelated source makes apt-get update exit non-zero; what
	# matters is whether the packages are found afterwards.
	apt-get update -q >/dev/null 2>&1 || say "apt-get update reported errors (continuing)"
}

# 1. Host tools.
need=
command -v qemu-system-aarch64 >/dev/null || need="$need qemu-system-arm"
command -v aarch64-linux-gnu-gcc >/dev/null || need="$need gcc-aarch64-linux-gnu"
[ -e /usr/aarch64-linux-gnu/lib/libc.a ] || need="$need libc6-dev-arm64-cross"
command -v cpio >/dev/null || need="$need cpio"
if [ -n "$need" ]; then
	as_root || skip "missing host packages:$need (run test/arm64/setup.sh as root, or apt-get install$need)"
	command -v apt-get >/dev/null || skip "missing host packages:$need and no apt-get on this machine"
	apt_update
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

# 2. Cache: kernel Images and busybox.
have_cache() {
	[ -s "$cache/Image-6.1" ] && [ -s "$cache/Image-6.12" ] && [ -x "$cache/busybox" ] && have510
}
# 5.10 is there, or failed to download less than a day ago.
have510() {
	[ -s "$cache/Image-5.10" ] || [ -n "$(find "$cache/5.10.missing" -mmin -1440 2>/dev/null)" ]
}
# kernel510: Debian 11's arm64 5.10 from bullseye (not the host's suites).
kernel510() {
	[ $refresh -eq 0 ] && [ -s "$cache/Image-5.10" ] && return 0
	say "downloading bullseye's arm64 5.10 kernel"
	rm -rf "$cache/.x510"
	got=$(test/debfetch.sh "$cache/apt-bullseye" arm64 "bullseye" "$cache/.x510" \
		'^linux-image-5\.10\.0-[0-9]+-arm64-unsigned$' 2>"$cache/.x510.err")
	img=$(ls "$cache"/.x510/boot/vmlinuz-* 2>/dev/null | head -n 1)
	if [ -z "$got" ] || [ ! -s "$img" ]; then
		echo "no Debian 11 arm64 5.10 kernel could be downloaded from bullseye ($(tail -n 1 "$cache/.x510.err"))" \
			>"$cache/5.10.missing"
		say "$(cat "$cache/5.10.missing")"
		rm -rf "$cache/.x510" "$cache/.x510.err"
		return 0
	fi
	mv "$img" "$cache/Image-5.10" || exit 1
	grep -v "^5.10 " "$cache/VERSIONS" 2>/dev/null >"$cache/.v510"
	echo "5.10 ${img##*/vmlinuz-} ($got)" >>"$cache/.v510"
	sort "$cache/.v510" >"$cache/VERSIONS"
	rm -rf "$cache/.x510" "$cache/.x510.err" "$cache/.v510" "$cache/5.10.missing"
}

if [ $refresh -eq 0 ] && [ -s "$cache/Image-6.1" ] && [ -s "$cache/Image-6.12" ] && [ -x "$cache/busybox" ] && ! have510; then
	kernel510
fi
if [ $refresh -eq 0 ] && have_cache; then
	say "ready ($(tr '\n' ' ' <"$cache/VERSIONS" 2>/dev/null))"
	exit 0
fi

command -v apt-get >/dev/null || skip "no apt-get: cannot download Debian's arm64 kernels into $cache"
if ! dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64 &&
   [ "$(dpkg --print-architecture 2>/dev/null)" != arm64 ]; then
	as_root || skip "dpkg has no arm64 architecture (as root: dpkg --add-architecture arm64 && apt-get update)"
	say "dpkg --add-architecture arm64"
	dpkg --add-architecture arm64 || skip "dpkg --add-architecture arm64 failed"
	updated=0	# the package lists must be fetched again for arm64
	apt_update
fi

# Newest first: linux-image-6.1.0-N-arm64-unsigned, linux-image-6.12.N+deb12-arm64-unsigned.
candidates() {
	apt-cache pkgnames "$1" 2>/dev/null | grep -E "$2" | sort -rV
}
list61() { candidates linux-image-6.1.0- '^linux-image-6\.1\.0-[0-9]+-arm64-unsigned$'; }
list612() { candidates linux-image-6.12. '^linux-image-6\.12\.[0-9]+\+deb12-arm64-unsigned$'; }
if [ -z "$(list61)" ] || [ -z "$(list612)" ] || ! apt-cache show busybox-static:arm64 >/dev/null 2>&1; then
	as_root && apt_update
fi

mkdir -p "$cache" || skip "cannot create the cache directory $cache"
tmp=$(mktemp -d "$cache/.dl.XXXXXX") || skip "cannot write to $cache"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

# fetch TAG LIST...: downloads the first package of LIST that apt-get can get,
# extracts it, and echoes its name.
fetch() {
	for p in $2; do
		rm -rf "$tmp/x" "$tmp"/*.deb
		if (cd "$tmp" && apt-get download -q "$p:arm64" >/dev/null 2>&1) &&
		   dpkg -x "$tmp"/*.deb "$tmp/x"; then
			echo "$p"
			return 0
		fi
		say "$1: could not download $p, trying an older one" >&2
	done
	return 1
}

# kernel TAG LIST: installs the Image of the newest downloadable package.
kernel() {
	tag=$1
	[ $refresh -eq 0 ] && [ -s "$cache/Image-$tag" ] && return 0
	[ -n "$2" ] || skip "no arm64 $tag kernel package known to apt (apt-get update with arm64 enabled; Debian 12 has linux-image-$tag*-arm64-unsigned)"
	say "downloading the newest arm64 $tag kernel"
	pkg=$(fetch "$tag" "$(echo "$2" | head -n 3)") ||
		skip "apt-get download of the arm64 $tag kernel failed (tried: $(echo "$2" | head -n 3 | tr '\n' ' '))"
	img=$(ls "$tmp"/x/boot/vmlinuz-* 2>/dev/null | head -n 1)
	[ -s "$img" ] || skip "$pkg holds no /boot/vmlinuz-*"
	mv "$img" "$cache/Image-$tag.new" && mv "$cache/Image-$tag.new" "$cache/Image-$tag" || exit 1
	ver=${img##*/vmlinuz-}
	pv=$(dpkg-deb -f "$tmp"/*.deb Version 2>/dev/null)
	grep -v "^$tag " "$cache/VERSIONS" 2>/dev/null >"$tmp/v"
	echo "$tag $ver ($pkg $pv)" >>"$tmp/v"
	sort "$tmp/v" >"$cache/VERSIONS"
}

kernel 6.1 "$(list61)"
kernel 6.12 "$(list612)"
kernel510

if [ $refresh -eq 1 ] || [ ! -x "$cache/busybox" ]; then
	say "downloading busybox-static:arm64"
	fetch busybox busybox-static >/dev/null || skip "apt-get download busybox-static:arm64 failed"
	[ -s "$tmp/x/bin/busybox" ] || skip "busybox-static:arm64 holds no /bin/busybox"
	cp "$tmp/x/bin/busybox" "$cache/busybox.new" && chmod 755 "$cache/busybox.new" &&
		mv "$cache/busybox.new" "$cache/busybox" || exit 1
fi

have_cache || skip "the cache $cache is incomplete after downloading"
say "ready ($(tr '\n' ' ' <"$cache/VERSIONS"))"
exit 0
