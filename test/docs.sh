#!/bin/sh
# SPDX-License-Identifier: MIT
# The docs tier: the documents say what the code does.
#  - Every ```sh block of README.md, docs/*.md, TESTING.md, HACKING.md and bench/README.md runs as
#    written (bash -e), in a scratch directory beside the tree, with HOME a scratch directory too.
#    A block whose first line is "# not run...: WHY" is skipped saying why; "# needs: root",
#    "# needs: pmu" (a hardware PMU), "# needs: CMD" or "# needs: /PATH" skips where that is missing.
#  - Every ```console block's "$ pmu ..." lines run (./build/pmu), and each line shown after one
#    must be in what it printed.
#  - Each pmu command's options: every option its --help names is in its manual, and every option
#    its manual or the documents name on a "pmu CMD" line is in its --help.
#  - test/README.md maps every test program, and test/tiers names only test programs.
#  - docs/api.md names every exported call, report format and environment variable.
#  - No version number written by hand where the build could give it: man pages, the CMake
#    example, the Python package.
# Prints "docs: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
T_TIER=docs T_PREFIX=docs/
. test/lib.sh
# A fresh tree, where the blocks run and write: README.md's come first, in their order, as a new user
# runs them (its quick start is the first make there).
fresh_tree "$PWD" && cd "$tree" || { fail=1; closing "cannot copy the tree"; exit 1; }
top=$tree
d=$(mktemp -d)
trap 'rm -rf "$d" "$tree" "$T_OUT"' EXIT
mkdir "$d/home"
# The documents' python3 is Debian's, with the python3-wheel and python3-pytest CI installs (another
# python3 ahead of it in PATH, pyenv's, may have neither).
if [ -x /usr/bin/python3 ]; then
	mkdir "$d/bin" && ln -s /usr/bin/python3 "$d/bin/python3" && PATH="$d/bin:$PATH"
fi
haspmu() { "$top/build/pmu" stat -e cycles -x, -- true >/dev/null 2>&1; }
docs="README.md $(ls docs/*.md) TESTING.md HACKING.md bench/README.md"

# Splits FILE's fenced blocks of language LANG into $d/blocks/N (first line: the file's line number).
blocks() {
	rm -rf "$d/blocks" && mkdir "$d/blocks"
	awk -v lang="$2" -v dir="$d/blocks" '
		/^```/ { if (!inb) { inb = 1; want = ($0 == "```" lang); if (want) { n++; f = dir "/" n; print NR > f } }
			 else { inb = 0; if (want) close(f); want = 0 } next }
		inb && want { print > f }' "$1"
}

run_sh() {
	for b in $(ls "$d/blocks" | sort -n); do
		name="$1:$(head -n 1 "$d/blocks/$b")"
		first=$(sed -n 2p "$d/blocks/$b")
		case $first in
		"# not run"*) sk "$name" "${first#\# }"; continue ;;
		"# needs: root") [ "$(id -u)" -eq 0 ] || { sk "$name" "needs root"; continue; } ;;
		"# needs: pmu") haspmu || { sk "$name" "needs a hardware PMU (none here)"; continue; } ;;
		"# needs: /"*) [ -e "${first#\# needs: }" ] || { sk "$name" "needs ${first#\# needs: }"; continue; } ;;
		"# needs: "*) command -v "${first#\# needs: }" >/dev/null || { sk "$name" "needs ${first#\# needs: }"; continue; } ;;
		esac
		tail -n +2 "$d/blocks/$b" > "$d/block.sh"
		out=$(cd "$top" && HOME="$d/home" lim bash -e -o pipefail "$d/block.sh" 2>&1)
		check "$name" $? "$out"
	done
}

run_console() {
	for b in $(ls "$d/blocks" | sort -n); do
		name="$1:$(head -n 1 "$d/blocks/$b")"
		tail -n +2 "$d/blocks/$b" | awk -v out="$d/console" '
			/^\$ / { n++; print substr($0, 3) > (out "." n ".cmd"); next }
			/^\.\.\.$/ { skipping = 1; next }
			n { print > (out "." n ".want") }'
		bad=
		for c in "$d"/console.*.cmd; do
			[ -f "$c" ] || continue
			cmd=$(sed 's/^sudo //; s/^pmu /.\/build\/pmu /' "$c")
			got=$(cd "$top" && lim sh -c "$cmd" 2>&1) || [ $? -lt 124 ] || bad="$bad
$cmd: killed, still running after $T_LIMIT s"
			w=${c%.cmd}.want
			[ -f "$w" ] && while IFS= read -r line; do
				printf '%s\n' "$got" | grep -qxF -- "$line" || bad="$bad
$cmd: not printed: $line"
			done < "$w"
		done
		rm -f "$d"/console.*
		if [ -z "$bad" ]; then ok "$name"; else ko "$name" "$bad"; fi
	done
}

for f in $docs; do
	[ "$f" = README.md ] || [ -x build/pmu ] || make -s --no-print-directory all >/dev/null ||
		{ ko make "the tree did not build"; break; }
	blocks "$f" sh && run_sh "$f"
	blocks "$f" console && run_console "$f"
done

# Options: --help against the manual, and the documents' pmu lines against --help.
opts() { grep -oE '(^|[][ ,{|(])--?[a-zA-Z][a-zA-Z-]*' | sed -E 's/^[][ ,{|(]//' | sort -u; }
for c in check list encode stat report emulate; do
	man=man/pmu-$c.1
	[ -f "$man" ] || man=man/pmu.1
	./build/pmu $c --help 2>&1 | opts > "$d/help"
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man" | grep -v '^\.\\"' | opts > "$d/man"
	missing=$(comm -23 "$d/help" "$d/man" | tr '\n' ' ')
	# what the manual gives this command (its SYNOPSIS, the terms of its option list; in pmu.1 the
	# lines that name it) and the documents' "pmu CMD ..." lines up to a "--" (what follows is the
	# command's), beyond its --help
	{ sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man" | awk -v own=$([ "$man" = man/pmu.1 ] && echo 0 || echo 1) -v c="$c" '
		/^\.SH/ { syn = ($0 ~ /SYNOPSIS/) } tp { print; tp = 0 } /^\.TP/ { tp = own }
		syn && (own || index($0, c)) { print }'; cat $docs | grep -oE "pmu $c( [^\`|;]*)?" | sed 's/ -- .*//'; } | opts > "$d/named"
	extra=$(comm -13 "$d/help" "$d/named" | grep -vxE -- '-h|--help|-' | tr '\n' ' ')
	if [ -z "$missing" ] && [ -z "$extra" ]; then
		ok "options:pmu $c"
	else
		ko "options:pmu $c" "in --help, not in $man: ${missing:-none}
named in $man or the documents, not in --help: ${extra:-none}"
	fi
done

# Tests a contributor can find: every test program in test/README.md's map, every name of
# test/tiers a test program.
groups=$(sed -n 's/^TEST_GROUPS := //p' Makefile)
unmapped=$(for g in $groups; do for f in test/$g/*.c; do t=$(basename "$f" .c)
	grep -q "\`$t\`" test/README.md || echo "$t"; done; done)
unknown=$(sed -n 's/^[a-z0-9]*: //p' test/tiers | tr ' ' '\n' | while read -r t; do
	[ -z "$t" ] || ls test/*/"$t.c" >/dev/null 2>&1 || echo "$t"; done)
loose=$(ls test/*.c test/*.h 2>/dev/null)	# a program belongs to a group, a header to test/lib/
if [ -z "$unmapped$unknown$loose" ]; then ok test-map; else ko test-map "not in test/README.md: $unmapped
in test/tiers, no test/GROUP/NAME.c: $unknown
at test/'s top, in no group: $loose"; fi

# The API reference names every exported call (src/libpmu.map), every report format pmu_report()
# takes (src/report/report.c) and every environment variable the library reads (src/).
api_missing=$(
	for c in $(sed -n 's/^\t\t\(pmu_[a-z_0-9]*\);$/\1/p' src/libpmu.map | sort -u); do
		grep -q "\b$c\b" docs/api.md || echo "call $c"; done
	for f in $(sed -n 's/.*strn*cmp(format, "\([a-z-]*\)".*/\1/p' src/report/report.c | sort -u); do
		grep -qF "\`\"$f\"\`" docs/api.md || echo "format \"$f\""; done
	for v in $(grep -rhoE '"(PMU_[A-Z_0-9]+|OMPI_[A-Z_]+|PMIX?_RANK|SLURM_PROCID)"' src | tr -d '"' | sort -u); do
		grep -q "\b$v\b" docs/api.md || echo "variable $v"; done)
if [ -z "$api_missing" ]; then ok api-reference; else ko api-reference "not in docs/api.md: $api_missing"; fi

# Versions: given by the build (include/pmu.h), never by hand.
hand=$(grep -nE '"libpmu [0-9]+\.[0-9]+|^\.B #define PMU_VERSION_[A-Z]+ [0-9]' man/* ;
	grep -nE 'find_package\(libpmu [0-9]' examples/cmake/CMakeLists.txt;
	grep -rnE '^(version|__version__) *=' python 2>/dev/null)
if [ -z "$hand" ]; then ok versions; else ko versions "$hand"; fi

closing
[ $fail -eq 0 ]
