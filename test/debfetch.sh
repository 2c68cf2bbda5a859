#!/bin/sh
# Downloads and unpacks Debian packages of another suite or architecture with a
# private apt configuration: its own sources list, state and cache under DIR,
# so the host's apt sources, lists and dpkg state are never read or changed.
#   usage: test/debfetch.sh DIR ARCH "SUITE..." OUT PACKAGE...
#   SUITE: trixie, bullseye-security, ... (a -security suite comes from the
#   security archive); PACKAGE: a name, or an extended regex (starting with ^)
#   of which the newest matching name is taken.
# Unpacks each package into OUT (dpkg -x) and prints "PACKAGE VERSION" lines.
# The package lists are fetched when missing or older than a day, or when
# PMU_DEBFETCH_UPDATE=1. Mirrors: the host's Debian mirror, or
# PMU_DEBIAN_MIRROR / PMU_DEBIAN_SECURITY_MIRROR. Exit: 0 done, 1 failed (why on stderr).
set -u
[ $# -ge 5 ] || { echo "usage: test/debfetch.sh DIR ARCH \"SUITE...\" OUT PACKAGE..." >&2; exit 2; }
dir=$1 arch=$2 suites=$3 out=$4
shift 4

# The first URI of the host's sources ending in /$1, else deb.debian.org.
host_mirror() {
	m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE "https?://[^ ]+/$1/?( |\$)" | head -n 1 | sed 's|/* *$||')
	echo "${m:-http://deb.debian.org/$1}"
}
mirror=${PMU_DEBIAN_MIRROR:-$(host_mirror debian)}
security=${PMU_DEBIAN_SECURITY_MIRROR:-$(host_mirror debian-security)}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/parts" "$dir/prefs" "$out" || exit 1
[ -e "$dir/state/status" ] || : >"$dir/state/status"
list=
for s in $suites; do
	case $s in
	*-security) list="${list}deb [signed-by=$keyring] $security $s main
" ;;
	*) list="${list}deb [signed-by=$keyring] $mirror $s main
" ;;
	esac
done
printf '%s' "$list" >"$dir/sources.list.new"
changed=1
cmp -s "$dir/sources.list.new" "$dir/sources.list" 2>/dev/null && changed=0
mv "$dir/sources.list.new" "$dir/sources.list"

apt_do() {
	"$@" -q -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts="$dir/parts" \
		-o Dir::Etc::Preferences="$dir/prefs/none" -o Dir::Etc::PreferencesParts="$dir/prefs" \
		-o Dir::State="$dir/state" -o Dir::State::status="$dir/state/status" \
		-o Dir::Cache="$dir/cache" -o APT::Architecture="$arch" -o APT::Architectures="$arch" \
		-o APT::Sandbox::User=root
}

fresh=$(find "$dir/state/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)
if [ $changed -eq 1 ] || [ -z "$fresh" ] || [ "${PMU_DEBFETCH_UPDATE:-0}" = 1 ]; then
	apt_do apt-get update >"$dir/update.log" 2>&1 ||
		echo "debfetch: apt-get update ($suites, $arch) reported errors: $(grep -E '^(E|W):' "$dir/update.log" | head -n 2 | tr '\n' ' ')" >&2
fi

rc=0
tmp=$(mktemp -d "$dir/.dl.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
for want in "$@"; do
	case $want in
	^*) names=$(apt_do apt-cache pkgnames 2>/dev/null | grep -E "$want" | sort -rV | head -n 6) ;;
	*) names=$want ;;
	esac
	[ -n "$names" ] || { echo "debfetch: no package matches $want in $suites ($arch)" >&2; rc=1; continue; }
	got=
	for p in $names; do
		rm -f "$tmp"/*.deb
		if (cd "$tmp" && apt_do apt-get download "$p" >/dev/null 2>"$tmp/err") &&
		   dpkg -x "$tmp"/*.deb "$out"; then
			got="$p $(dpkg-deb -f "$tmp"/*.deb Version)"
			break
		fi
		echo "debfetch: could not download $p: $(grep -E '^(E|W):' "$tmp/err" | head -n 1)" >&2
	done
	[ -n "$got" ] && echo "$got" || rc=1
done
exit $rc
