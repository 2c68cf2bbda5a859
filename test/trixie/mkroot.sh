# SPDX-License-Identifier: MIT
# Sourced by the setups of Debian 13 roots (test/trixie/setup.sh, test/emulated/qemu_setup.sh):
# mkroot ROOT PKGS WHAT: mmdebstrap trixie with PKGS (comma-separated) into ROOT, from the host's
# Debian mirror (or PMU_DEBIAN_MIRROR), within PMU_TRIXIE_TIMEOUT seconds (900); its log beside
# ROOT. Exits 77 saying why where it cannot (the caller's skip() prints "SKIP: ...").
mkroot() {
	[ "$(id -u)" -eq 0 ] || skip "making the Debian 13 $3 needs root (mmdebstrap, chroot)"
	command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed (apt-get install mmdebstrap)"
	mirror=${PMU_DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n 1 |
		sed 's|/* *$||')}
	mirror=${mirror:-http://deb.debian.org/debian}
	rm -rf "$1" && mkdir -p "$(dirname "$1")" || skip "cannot make $(dirname "$1")"
	echo "mmdebstrap trixie, the $3, from $mirror (about 2 minutes)"
	timeout -k 30 "${PMU_TRIXIE_TIMEOUT:-900}" mmdebstrap --quiet --variant=apt --include="$2" trixie "$1.tar" \
		"deb $mirror trixie main" > "$1.mmdebstrap.log" 2>&1 || {
		tail -n 5 "$1.mmdebstrap.log"
		rm -f "$1.tar"
		skip "mmdebstrap trixie failed or took too long (no Debian mirror reachable?): $1.mmdebstrap.log"
	}
	mkdir "$1" && tar -xf "$1.tar" -C "$1" && rm -f "$1.tar" || skip "cannot unpack the root into $1"
}
