# Sourced by the tier scripts (POSIX sh): their counts, the PASS, FAIL and
# SKIP lines, the closing line, and a time limit on every step, so that a
# step that hangs fails, naming itself and the limit, and the tier goes on.
#   T_TIER        the tier's name, for the closing line
#   T_PREFIX      printed before each check's name ("install/", or empty)
#   TEST_TIMEOUT  seconds a step may run (default 300)
# A script that sets its own EXIT trap removes "$T_OUT" there too.
pass=0 fail=0 skip=0
T_LIMIT=${TEST_TIMEOUT:-300}
T_OUT=$(mktemp /tmp/pmu-tier.XXXXXX) || exit 1
trap 'rm -f "$T_OUT"' EXIT

ok() { pass=$((pass + 1)); echo "PASS $T_PREFIX$1"; }
# ko NAME [OUTPUT]: the last lines of OUTPUT follow, indented.
ko() {
	fail=$((fail + 1))
	echo "FAIL $T_PREFIX$1"
	[ -z "$2" ] || printf '%s\n' "$2" | tail -n 20 | sed 's/^/    /'
}
sk() { skip=$((skip + 1)); echo "SKIP $T_PREFIX$1: $2"; }
# check NAME STATUS [OUTPUT]: a step by its exit status; 124 and 137 are lim's (out of time).
check() {
	case $2 in
	0) ok "$1" ;;
	124 | 137) ko "$1 (killed: still running after $T_LIMIT s)" "$3" ;;
	*) ko "$1" "$3" ;;
	esac
}
# lim CMD...: CMD under the time limit (TERM, and KILL 10 s later).
lim() { timeout -k 10 "$T_LIMIT" "$@"; }
# run NAME CMD...: passes when CMD exits 0 within the limit; its output is left in $T_OUT.
# A shell function of the script's own runs as it is (keep those to builds and file checks).
run() {
	n=$1
	shift
	case $(type "$1" 2>/dev/null) in
	*function*) "$@" >"$T_OUT" 2>&1 ;;
	*) lim "$@" >"$T_OUT" 2>&1 ;;
	esac
	check "$n" $? "$(cat "$T_OUT")"
}
closing() { echo "$T_TIER: $pass passed, $fail failed, $skip skipped${1:+ ($1)}"; }

# fresh_tree SRC: a copy of the source tree SRC (the files git tracks and the new ones it does not
# ignore: what a clone of this work would hold, no build output) in a new directory, whose path is
# left in $tree. A tier that stands for a user's flow runs there, sharing no other tier's build.
# With PMU_TREE_PROBE=FILE (the builds tier's check), it records the tree in FILE and exits 77.
fresh_tree() {
	tree=$(mktemp -d /tmp/pmu-tree.XXXXXX) || return 1
	if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$1" && git ls-files -co --exclude-standard | while IFS= read -r f; do
			[ -e "$f" ] || [ -L "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T -) | tar -xf - -C "$tree"
	else
		(cd "$1" && tar -cf - --exclude='./build*' --exclude=./.git .) | tar -xf - -C "$tree"
	fi || { echo "cannot copy $1 into $tree"; return 1; }
	if [ -n "${PMU_TREE_PROBE:-}" ]; then
		echo "tree $tree $(find "$tree" \( -type d -name 'build*' -o -name '*.o' -o -name '*.so' -o -name '*.so.[0-9]*' \) ! -name '*.abi' | head -n 1)" >> "$PMU_TREE_PROBE"
		rm -rf "$tree"
		exit 77
	fi
}
