#!/bin/sh
# Everything builds warning-free (-Werror) with gcc, clang, the read(2)-only
# generic arch, and the arm64 and riscv64 cross compilers where installed;
# and pmu.h, with its inline read, compiles as C11 and C++17 for each.
# Prints "builds: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
T_TIER=builds T_PREFIX=builds/
. test/lib.sh
have() {
	command -v "$1" >/dev/null && return
	sk "$name" "$1 is not installed"
	return 1
}
b() {
	name=$1 cc=$2
	shift 2
	have "$cc" && run "$name" make -s --no-print-directory WERROR=1 CC="$cc" "$@"
}
b gcc gcc O=build all tests bench compat python
b clang clang O=build-clang all tests bench python
b generic gcc O=build-generic CFLAGS="-O2 -DPMU_ARCH_GENERIC" all tests bench
b aarch64 aarch64-linux-gnu-gcc O=build/arm64 STATIC=1 all tests bench
b riscv64 riscv64-linux-gnu-gcc O=build-riscv64 STATIC=1 all tests bench
# The library/tool boundary: libpmu.a holds no code of the tool's (/proc's tasks, the policy, the
# command lines, diff's statistics), and every global of it is named pmu_ or pmu__. The tool links
# libpmu.a and stands alone; the plugins link libpmu.so.0, call only the private exports
# src/plugin.map lists (at most 20, each declared PMU_PLUGIN in src/plugin.h, which declares
# nothing else, with its users named there), keep no copy of what it exports, and fail to load,
# naming the version they need, beside another version's library. libpmu-mpi holds no tool code.
v=$(sed -n 's/^#define PMU_VERSION_[A-Z]* //p' include/pmu.h | paste -sd.)
# The sources the checks read, at any depth: a layer's own folders (src/counters/arch/) are its.
SRC=$(find src -name '*.[ch]' -not -path 'src/uapi/*' | sort)
LIBC=$(find src -name '*.c' | sort)
PLUG=$(find compat emulation -name '*.[ch]' -not -path '*/valgrind/*' 2>/dev/null | sort)
PLUGC=$(echo "$PLUG" | grep '\.c$')
no_tool_code() {
	nm --defined-only build/libpmu.a > build/libpmu.a.nm || return 1
	! grep -E ' (pmu__task_[a-z]*|pmu__online_cpus|pmu__policy[a-z_]*|tool_[a-z_]*|diff_[a-z_]*|cmd_[a-z]*)$' build/libpmu.a.nm &&
		! grep -E ' [TDRB] ' build/libpmu.a.nm | grep -vE ' (pmu_|pmu__|__cyg_profile_func_)[a-z0-9_]*$' &&
		grep -q ' pmu__event_parse$' build/libpmu.a.nm && grep -q ' pmu__merge_add$' build/libpmu.a.nm
}
# libpmu-mpi links libpmu.so.0 and nothing of tools/: its own code is compat/runtimes/mpi.c alone.
mpi_no_tool_code() {
	nm --defined-only build/libpmu-mpi.so | awk '$2 ~ /[TtDdRrBb]/ { print $3 }' | sort > build/mpi.defs
	nm --defined-only build/compat/mpi.o | awk '$2 ~ /[TtDdRrBb]/ { print $3 }' | sort > build/mpi.own
	comm -23 build/mpi.defs build/mpi.own | grep -vE '^(_init|_fini|_DYNAMIC|_GLOBAL_OFFSET_TABLE_|__dso_handle|__TMC_END__|__bss_start|_edata|_end|__FRAME_END__|__GNU_EH_FRAME_HDR|deregister_tm_clones|register_tm_clones|__do_global_dtors_aux|frame_dummy|completed\.[0-9]*|__do_global_dtors_aux_fini_array_entry|__frame_dummy_init_array_entry)$' > build/mpi.extra
	cat build/mpi.extra
	[ ! -s build/mpi.extra ] && readelf -d build/libpmu-mpi.so | grep -q 'NEEDED.*libpmu\.so\.0'
}
# The quantiles the reports give, and their names, are defined once (src/report/report_dist.c).
one_quantile_list() {
	grep -nE '0\.5, 0\.9, 0\.99, 0\.999|"p50", "p90"|"p99\.9"' $SRC tools/*.[ch] $PLUGC > build/quantiles
	cat build/quantiles
	[ "$(grep -c . build/quantiles)" = 2 ] && [ "$(cut -d: -f1 build/quantiles | sort -u)" = src/report/report_dist.c ]
}
tool_alone() { ! readelf -d build/pmu | grep 'NEEDED.*libpmu'; }
private_exports() {
	sed -n 's/^\t\t\(pmu__[a-z_0-9]*\);$/\1/p' src/plugin.map | sort > build/private.map
	nm -D --defined-only build/libpmu.so.0 | sed -n 's/.* \(pmu__[a-z_0-9]*\)@.*/\1/p' | sort > build/private.nm
	sed -n 's/^PMU_PLUGIN .*[ *]\(pmu__[a-z_0-9]*\)[();].*/\1/p' src/plugin.h | sort > build/private.decl
	! grep -n '^PMU_PLUGIN' $(echo "$SRC" | grep '/.*/.*\.h$') || return 1
	! grep -n '^#include "' src/plugin.h || return 1
	sed -n 's/^ \*   \(pmu__[a-z_0-9]*\)  .*/\1/p' src/plugin.h | sort > build/private.doc
	for f in nm decl doc; do diff build/private.map "build/private.$f" || { echo "src/plugin.map and $f differ"; return 1; }; done
	echo "$(wc -l < build/private.map) private exports"
	[ "$(wc -l < build/private.map)" -le 20 ]
}
plugins_share() {
	nm -D --defined-only build/libpmu.so.0 | awk '{ sub(/@.*/, "", $3); print $3 }' | sort > build/lib.exports
	for p in build/libpmu-*.so; do
		nm --defined-only "$p" | awk '{ print $3 }' | sort | comm -12 - build/lib.exports | sed "s|^|$p: a copy of |"
	done | grep -v 'libpmu-functions.so: a copy of __cyg_profile_func_' > build/plugin.copies
	# (libpmu-functions' two hooks are its unversioned doors to the library's: calls, not copies)
	cat build/plugin.copies
	[ ! -s build/plugin.copies ]
}
other_version() {
	make -s --no-print-directory O=build-otherver VERSION=0.0.0 build-otherver/libpmu.so.0.0.0 || return 1
	! LD_LIBRARY_PATH=build-otherver LD_PRELOAD="$PWD/build/libpmu-papi.so.0" /bin/true > build-otherver/out 2>&1 &&
		grep -F "version \`LIBPMU_PRIVATE_$v' not found" build-otherver/out
}
# No circle: neither #include "..." between src/ and tools/ files, nor calls between their objects.
no_circle() {
	for f in $SRC tools/*.[ch]; do
		for i in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			for t in "$(dirname "$f")/$i" "src/$i" "tools/$i"; do
				[ -f "$t" ] && { echo "$f $(realpath --relative-to=. "$t")"; break; }
			done
		done
	done > build/include.edges
	tsort build/include.edges > /dev/null || return 1
	for o in $(find build/src -name '*.o') build/tools/*.o; do nm --defined-only -g "$o" | awk -v o="$o" '{ print $3, o }'; done |
		sort > build/defs.list
	for o in $(find build/src -name '*.o') build/tools/*.o; do nm -u "$o" | awk -v o="$o" '{ print $2, o }'; done | sort > build/uses.list
	join build/uses.list build/defs.list | awk '$2 != $3 { print $2, $3 }' | sort -u > build/call.edges
	[ -s build/call.edges ] && tsort build/call.edges > /dev/null
}
run no-circle no_circle
# Layers: the folders of src/ in the order of HACKING.md's table; no file includes, and no
# object calls, a layer above its own.
layers() {
	order=$(sed -n "/^### The library's layers/,/^Beside the layers/s/^| \`src\\/\\([a-z]*\\)\\/\` |.*/\\1/p" HACKING.md |
		tr '\n' ' ')
	rank() { i=0; for l in $order; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
	[ -n "$order" ] || { echo "no layer table in HACKING.md"; return 1; }
	for d in src/*/; do
		l=$(basename "$d")
		case " $order uapi " in *" $l "*) ;; *) echo "src/$l/: not a layer of HACKING.md's table ($order)"; return 1 ;; esac
	done
	layer() { echo "$1" | cut -d/ -f2; }	# src/LAYER/...
	for f in $(echo "$SRC" | grep '^src/.*/'); do
		l=$(layer "$f")
		for i in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f"); do
			[ "$(rank "$i")" -le "$(rank "$l")" ] || echo "$f ($l) includes $i/"
		done
	done > build/layer.bad
	for o in $(find build/src -name '*.o'); do nm --defined-only -g "$o" | awk -v l="$(layer "${o#build/}")" '{ print $3, l }'; done |
		sort > build/layer.defs
	for o in $(find build/src -name '*.o'); do nm -u "$o" | awk -v l="$(layer "${o#build/}")" -v o="$o" '{ print $2, l, o }'; done |
		sort | join - build/layer.defs | while read -r sym lu o ld; do
			[ "$(rank "$ld")" -le "$(rank "$lu")" ] || echo "$o ($lu) calls $sym ($ld)"
		done >> build/layer.bad
	cat build/layer.bad
	[ ! -s build/layer.bad ] && echo "layers, bottom up: $order"
}
run layers layers
# The tiers that stand for a user's flow (install, python, docs, deb, trixie) start from a fresh tree
# of their own (test/lib.sh's fresh_tree) before any make, so none reads what another tier built.
# Each runs with PMU_TREE_PROBE, which stops it at fresh_tree, and a make on PATH that records where
# it was run: a make before the fresh tree, or a tree holding build output, fails. The fixture
# test/fixtures/shared_tree.sh, a tier that builds in the shared tree, must be caught.
fresh_trees() {
	mkdir -p build/probe && printf '#!/bin/sh\necho "make $PWD" >> "$PMU_TREE_PROBE"\nexit 1\n' > build/probe/make &&
		chmod +x build/probe/make || return 1
	for s in test/install.sh test/python.sh test/docs.sh test/deb.sh test/trixie.sh test/fixtures/shared_tree.sh; do
		: > build/probe/log
		PATH="$PWD/build/probe:$PATH" PMU_TREE_PROBE="$PWD/build/probe/log" timeout 60 sh "$s" > build/probe/out 2>&1
		first=$(head -n 1 build/probe/log)
		case $first in
		"tree "*" "?*) why="its fresh tree holds build output: ${first##* }" ;;
		"tree "*) why= ;;
		"make "*) why="it ran make in $(echo "$first" | cut -d' ' -f2-) before taking a fresh tree" ;;
		*) grep -q '^SKIP' build/probe/out && why= || why="it never took a fresh tree (test/lib.sh's fresh_tree)" ;;
		esac
		case $s in
		*/shared_tree.sh) [ -n "$why" ] || { echo "$s: not caught"; return 1; }
			echo "caught: $s: $why" ;;
		*) [ -z "$why" ] || { echo "$s: $why"; return 1; }
			echo "fresh: $s" ;;
		esac
	done
}
run fresh-trees fresh_trees
# Functions a reader can hold: none in src/, tools/ or compat/ over 80 lines, its signature and
# braces counted (a function's body opens with "{" alone at the start of a line).
short_functions() {
	! awk 'FNR == 1 { sig = 1 }
		/^\{$/ { start = sig }
		/^\}$/ && start { if (FNR - start + 1 > 80) { printf "%s:%d: %d lines\n", FILENAME, start, FNR - start + 1; bad = 1 } start = 0 }
		/^$|^[}#]|^\/\*|^ \*|;$/ { sig = FNR + 1 }
		END { exit !bad }' $SRC tools/*.[ch] $PLUGC
}
run functions-80-lines short_functions
# One vocabulary of concurrency: atomics, fences and barriers in src/base/atomic.h alone (the
# public pmu/inline.h keeps the page's own); volatile only for a signal's flag and the arch's asm.
one_vocabulary() {
	grep -nE '__atomic_|__sync_|stdatomic|_Atomic|atomic_(load|store|exchange|fetch|thread_fence|signal_fence)|"memory"|volatile' \
		$SRC tools/*.[ch] $PLUG | grep -v '^src/base/atomic\.h:' |
		grep -vE 'volatile sig_atomic_t|__asm__ (__volatile__|volatile)\("(mrs|csrr|rdtsc|\.balign 8)|^[^:]*:[0-9]+: \* ' > build/vocabulary.bad
	cat build/vocabulary.bad
	[ ! -s build/vocabulary.bad ]
}
run one-vocabulary one_vocabulary
# No raw lock (HACKING.md, "No lock across a cancellation point") but a fork handler's, said on its
# line or the one above.
raw_locks() {
	for f in $LIBC $PLUGC; do
		awk -v f="$f" '/pthread_mutex_(lock|unlock)\(/ && $0 !~ /raw: a fork handler/ && prev !~ /raw: a fork handler/ {
			printf "%s:%d: %s\n", f, FNR, $0 } { prev = $0 }' "$f"
	done > build/raw.locks
	cat build/raw.locks
	[ ! -s build/raw.locks ]
}
run raw-locks raw_locks
run lib-has-no-tool-code no_tool_code
if [ -f build/libpmu-mpi.so ]; then run mpi-no-tool-code mpi_no_tool_code
else sk mpi-no-tool-code "libpmu-mpi.so is not built here (no mpicc)"; fi
run one-quantile-list one_quantile_list
run tool-stands-alone tool_alone
run private-exports private_exports
run plugins-share-library plugins_share
run plugin-other-version other_version
# The installed header alone, as an outside C11 or C++17 program sees it, on every architecture.
hdr() {
	name=$1 cc=$2 src=$3
	shift 3
	have "$cc" && run "$name" sh -c 'printf "#include <pmu.h>\nint f(const struct pmu_counter *c, uint64_t *v) { return pmu_counter_read(c, v); }\n" |
		"$@" -Wall -Wextra -Werror -pedantic -Iinclude -fsyntax-only -' sh "$cc" -x "$src" "$@"
}
hdr header-c11-gcc gcc c -std=c11
hdr header-c11-generic gcc c -std=c11 -DPMU_ARCH_GENERIC
hdr header-c++17-g++ g++ c++ -std=c++17
hdr header-c++17-clang++ clang++ c++ -std=c++17
for t in aarch64 riscv64; do
	hdr header-c11-$t $t-linux-gnu-gcc c -std=c11
	if [ -d /usr/$t-linux-gnu/include ]; then
		hdr header-c++17-$t clang++ c++ -std=c++17 --target=$t-linux-gnu --sysroot=/usr/$t-linux-gnu
	else
		sk header-c++17-$t "no $t C library headers (libc6-dev-*-cross)"
	fi
done
closing
[ $fail -eq 0 ]
