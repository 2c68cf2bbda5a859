#!/bin/sh
# make install into a temporary prefix, then build and run outside programs
# against it as a user would: with pkg-config and with CMake's
# find_package(libpmu). Then DESTDIR staging, the ldconfig decision (with a
# stand-in ldconfig: the system's loader cache is never changed) and
# make uninstall. Then what a user meets: no Python, a cross build for arm64 and riscv64 with the
# documented links, an install over the first, over another version's, into a prefix that cannot be
# written. It runs in a fresh tree (test/lib.sh's fresh_tree): make install is the first make there.
# Prints "install: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
T_TIER=install T_PREFIX=install/
. test/lib.sh
fresh_tree "$PWD" && cd "$tree" || { fail=1; closing "cannot copy the tree"; exit 1; }
own=$tree	# (fresh_tree sets tree again for the copies below)
d=$(mktemp -d)
trap 'rm -rf "$d" "$own" "$T_OUT"' EXIT
# Every file and directory below $1, with symlinks' targets: a prefix's state.
snap() { (cd "$1" && find . | sort | while read -r f; do
	if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f"; fi; done); }

# The version is defined once, in include/pmu.h.
ver=$(for x in MAJOR MINOR PATCH; do sed -n "s/^#define PMU_VERSION_$x //p" include/pmu.h; done | paste -sd.)
p=$d/prefix
run make-install sh -c "make -s install PREFIX=$p > $d/install.out 2>&1 || { cat $d/install.out; exit 1; }"
export PKG_CONFIG_PATH="$p/lib/pkgconfig"
run pkg-config pkg-config --exists libpmu
run build-shared sh -c "cc examples/count.c \$(pkg-config --cflags --libs libpmu) -Wl,-rpath,$p/lib -o $d/count"
run run-shared "$d/count" task-clock,page-faults
run build-static sh -c "cc examples/count.c \$(pkg-config --cflags libpmu) $p/lib/libpmu.a \$(pkg-config --static --libs-only-other --libs-only-l libpmu | sed 's/-lpmu//') -o $d/count-static"
run run-static "$d/count-static" task-clock
run soname sh -c "readelf -d $p/lib/libpmu.so.0 | grep -q 'SONAME.*libpmu.so.0'"
# The public API is exported, pmu_*; the internal pmu__* only what the plugins
# use, in the node of this exact version (src/plugin.map).
v=$(sed -n 's/^#define PMU_VERSION_[A-Z]* //p' include/pmu.h | paste -sd.)
run exports sh -c "objdump -T $p/lib/libpmu.so | awk '\$2 == \"g\" && \$4 != \"*UND*\" && \$(NF-1) != \$NF {print \$(NF-1), \$NF}' > $d/syms &&
	! grep -v '^LIBPMU\|^GLIBC_' $d/syms | awk '{print \$2}' | grep -v '^pmu_[a-z]' &&
	[ \"\$(grep '^GLIBC_' $d/syms | awk '{print \$2}' | sort | tr '\\n' ' ')\" = '_Exit _exit ' ] &&
	! grep '^LIBPMU_[0-9.]* pmu__' $d/syms && grep -q '^LIBPMU_PRIVATE_$v pmu__event_next\$' $d/syms &&
	! grep '^LIBPMU_PRIVATE' $d/syms | grep -v ' pmu__' && grep -q '^LIBPMU_0 pmu_read\$' $d/syms"
# Installed headers: pmu.h and include/pmu/*.h, each a copy of the tree's
# include/ file of the same path; nothing from src/.
run header-only-public sh -c "cmp -s $p/include/pmu.h include/pmu.h &&
	cd $p/include && find . ! -type d | sed 's|^\./||' | while read -r f; do
		case \$f in pmu.h|pmu/*.h) cmp -s \"\$f\" \"$PWD/include/\$f\" || { echo \"not from include/: \$f\"; exit 1; } ;;
		libpmu-papi/papi.h) cmp -s \"\$f\" $PWD/compat/dropins/papi_protos.h || exit 1 ;;
		libpmu-likwid/likwid.h) cmp -s \"\$f\" $PWD/compat/dropins/likwid_protos.h || exit 1 ;;
		libpmu-likwid/likwid-marker.h) cmp -s \"\$f\" $PWD/compat/dropins/likwid-marker.h || exit 1 ;;
		libpmu-likwid/likwid.mod) ;;
		*) echo \"not a public header: \$f\"; exit 1 ;; esac; done"
run man-pages sh -c "ls $p/share/man/man3/pmu_open.3 $p/share/man/man1/pmu.1"
# Alias pages are .so stubs in the tree (no symlinks) and are installed as such, not as copies.
run man-aliases sh -c "[ -z \"\$(find man -type l)\" ] && for f in man/*.3; do
	if head -n 1 \$f | grep -q '^\.so '; then cmp -s \$f $p/share/man/man3/\$(basename \$f) || exit 1; fi; done &&
	[ \"\$(head -n 1 $p/share/man/man3/pmu_close.3)\" = '.so man3/pmu_open.3' ]"
run bash-completion sh -c "bash -n $p/share/bash-completion/completions/pmu &&
	grep -q 'complete -F _pmu pmu' $p/share/bash-completion/completions/pmu"
# Installed outside the loader's path, everything runs with no LD_LIBRARY_PATH: the tool
# stands alone (libpmu.a), the drop-ins find libpmu.so.0 relative to themselves ($ORIGIN), a
# program linked as the manuals say finds the rest, Python the library of its prefix. The same
# after the prefix moved.
unset LD_LIBRARY_PATH
run tool "$p/bin/pmu" version
run tool-stands-alone sh -c "! readelf -d $p/bin/pmu | grep -E 'NEEDED.*libpmu|RUNPATH'"
run drop-ins-runpath sh -c "for l in papi likwid; do readelf -d $p/lib/libpmu-\$l.so.0 | grep -q 'RUNPATH.*\[\$ORIGIN\]' || exit 1; done"
# The runtimes' plugins, in LIBDIR/libpmu/, find libpmu.so.0 one level up, loaded by path.
run runtime-plugins sh -c "for l in omp kokkos; do ldd $p/lib/libpmu/libpmu-\$l.so | grep -q 'libpmu.so.0 => $p/lib/libpmu/../lib' ||
	ldd $p/lib/libpmu/libpmu-\$l.so | grep -q 'libpmu.so.0 => $p/lib/libpmu/../libpmu.so.0' || { ldd $p/lib/libpmu/libpmu-\$l.so; exit 1; }; done &&
	ls $p/share/man/man7/libpmu-omp.7 $p/share/man/man7/libpmu-kokkos.7"
# pmu emulate finds libpmu-qemu.so in LIBDIR/libpmu from where pmu is, wherever the prefix is.
if command -v qemu-x86_64 >/dev/null; then
	run emulate-plugin sh -c "$p/bin/pmu stat --emulate -e instructions -- /bin/true 2>&1 | tee /dev/stderr |
		grep -q 'instructions: emulated (QEMU'"
else
	sk emulate-plugin "qemu-user is not installed"
fi
# The drop-ins' headers come with them: no PAPI or LIKWID installation needed to compile.
run papi-program sh -c "cc -o $d/papi test/compat/papi_misuse.c \$(pkg-config --cflags --libs libpmu-papi) -Wl,-rpath,$p/lib &&
	mkdir -p $d/papi-run && cd $d/papi-run && PAPI_EVENTS=perf::TASK-CLOCK $d/papi none && ls papi_hl_output/rank_*.json"
run likwid-c sh -c "cc -DLIKWID_PERFMON -o $d/likwid test/compat/likwid_groups.c \$(pkg-config --cflags --libs libpmu-likwid) -Wl,-rpath,$p/lib &&
	PMU_EVENTS='page-faults|task-clock,page-faults' PMU_REPORT=$d/likwid.txt $d/likwid && grep -q '^work' $d/likwid.txt"
if command -v gfortran >/dev/null; then
	run likwid-fortran sh -c "gfortran -o $d/likwid_f test/compat/likwid_fortran.f90 \$(pkg-config --cflags --libs libpmu-likwid) -Wl,-rpath,$p/lib &&
		PMU_EVENTS=task-clock,page-faults $d/likwid_f 2>/dev/null | grep -qx 'events 2 calls 3'"
else
	sk likwid-fortran "gfortran is not installed"
fi
pydir=$(ls -d $p/lib/python3*/site-packages 2>/dev/null | head -n 1)
if [ -n "$pydir" ]; then
	run python sh -c "cd $d && PYTHONPATH=$pydir python3 -c 'import pmu; assert pmu.version() == \"$ver\", pmu.version(); assert pmu.library.startswith(\"$pydir\"), pmu.library'"
	# With Python's headers, the extension is installed and serves the calls (the defect of 0.7.0:
	# make install named it but never built it).
	if python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))'; then
		run python-extension sh -c "cd $d && PYTHONPATH=$pydir python3 -c 'import pmu; assert pmu.backend() == \"extension\", pmu.backend(True)'"
	else
		sk python-extension "no Python.h for python3 here (python3-dev): the package is ctypes alone"
	fi
else
	sk python "python3 is not installed: make install placed no Python package"
fi
# Moved: the tool, a program inside the prefix linked relative to itself, and Python.
run moved sh -c "cc -o $p/bin/papi-rel test/compat/papi_misuse.c \$(pkg-config --cflags --libs libpmu-papi) -Wl,-rpath,'\$ORIGIN/../lib' &&
	mv $p $d/moved && $d/moved/bin/pmu version >/dev/null &&
	{ ! command -v qemu-x86_64 >/dev/null || $d/moved/bin/pmu emulate /bin/true; } && (cd $d && PAPI_EVENTS=perf::TASK-CLOCK $d/moved/bin/papi-rel none) &&
	{ [ -z '$pydir' ] || (cd $d && PYTHONPATH=\$(ls -d $d/moved/lib/python3*/site-packages) python3 -c 'import pmu; pmu.version()'); }; r=\$?;
	mv $d/moved $p; rm -f $p/bin/papi-rel; exit \$r"

# The loader cache: a prefix outside the loader's search path gets a hint.
run ldconfig-hint grep -q "^libpmu: $p/lib is not in the loader's search path: .*-Wl,-rpath,$p/lib" "$d/install.out"
# A prefix in the search path gets ldconfig (as root) or the advice to run it.
# The stand-in answers -vNX with that prefix and records any other call.
cat > "$d/ldconfig" <<EOS
#!/bin/sh
if [ "\$1" = -vNX ]; then echo "$p/lib: (from test)"; else echo "ran \$*" >> "$d/ldconfig.log"; fi
EOS
chmod +x "$d/ldconfig"
if [ "$(id -u)" -eq 0 ]; then
	run ldconfig-run sh -c "make -s install PREFIX=$p LDCONFIG=$d/ldconfig | grep -q '^libpmu: running $d/ldconfig' &&
		[ \"\$(cat $d/ldconfig.log)\" = 'ran ' ]"
else
	run ldconfig-advice sh -c "make -s install PREFIX=$p LDCONFIG=$d/ldconfig | grep -q '^libpmu: run ldconfig as root' &&
		[ ! -e $d/ldconfig.log ]"
fi

# CMake: find_package(libpmu CONFIG REQUIRED), the shared and static targets.
if command -v cmake >/dev/null; then
	run cmake-configure cmake -S examples/cmake -B "$d/app" -DCMAKE_PREFIX_PATH="$p"
	run cmake-build cmake --build "$d/app"
	run cmake-run-shared sh -c "$d/app/count task-clock && readelf -d $d/app/count | grep -q 'NEEDED.*libpmu.so.0'"
	run cmake-run-static sh -c "$d/app/count_static task-clock && ! readelf -d $d/app/count_static | grep -q libpmu"
	# The version file refuses a newer major version than the one installed.
	mkdir "$d/v1"
	printf 'cmake_minimum_required(VERSION 3.13)\nproject(v C)\nfind_package(libpmu 1.0 CONFIG REQUIRED)\n' > "$d/v1/CMakeLists.txt"
	run cmake-version sh -c "! cmake -S $d/v1 -B $d/v1/b -DCMAKE_PREFIX_PATH=$p > $d/v1.out 2>&1 &&
		grep -q 'version: $ver' $d/v1.out"
	# Relocatable: the prefix moved elsewhere (its old path gone), the package finds its files there.
	run cmake-relocated sh -c "mv $p $d/moved && cmake -S examples/cmake -B $d/app2 -DCMAKE_PREFIX_PATH=$d/moved >$d/reloc.out 2>&1 &&
		cmake --build $d/app2 >>$d/reloc.out 2>&1 && $d/app2/count task-clock >>$d/reloc.out 2>&1 &&
		grep -q '$d/moved/include' $d/app2/CMakeCache.txt $d/app2/CMakeFiles/*/flags.make 2>/dev/null; r=\$?; mv $d/moved $p; exit \$r"
else
	sk cmake "cmake is not installed"
fi

# DESTDIR staging, Debian-style paths: everything lands below the stage, the
# paths written into libpmu.pc and the CMake files do not name the stage, and
# ldconfig is left to the packaging.
s=$d/stage
run destdir sh -c "make -s install DESTDIR=$s PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu LDCONFIG=$d/ldconfig > $d/stage.out 2>&1 &&
	[ ! -s $d/stage.out ] && [ -f $s/usr/lib/x86_64-linux-gnu/libpmu.so.$ver ] &&
	[ -f $s/usr/lib/x86_64-linux-gnu/cmake/libpmu/libpmuConfig.cmake ] && [ -f $s/usr/include/pmu.h ] &&
	! grep -rq $s $s/usr/lib/x86_64-linux-gnu/pkgconfig $s/usr/lib/x86_64-linux-gnu/cmake &&
	grep -q '\"/usr/lib/x86_64-linux-gnu\"' $s/usr/lib/x86_64-linux-gnu/cmake/libpmu/libpmuConfig.cmake"
# A system install carries no RUNPATH (Debian policy): the tool and drop-ins are linked again for it.
run destdir-no-runpath sh -c "for f in $s/usr/bin/pmu $s/usr/lib/x86_64-linux-gnu/libpmu-papi.so.$ver $s/usr/lib/x86_64-linux-gnu/libpmu-likwid.so.$ver \
	$s/usr/lib/x86_64-linux-gnu/libpmu/libpmu-omp.so $s/usr/lib/x86_64-linux-gnu/libpmu/libpmu-kokkos.so; do
	[ -f \$f ] && ! readelf -d \$f | grep -q 'RPATH\|RUNPATH' || exit 1; done"
run destdir-uninstall sh -c "make -s uninstall DESTDIR=$s PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu &&
	[ -z \"\$(find $s ! -type d)\" ]"

# make uninstall leaves a prefix exactly as it was: a /usr/local-like prefix
# with other packages' files in the directories libpmu shares.
u=$d/usr-local
mkdir -p "$u/bin" "$u/include" "$u/lib/pkgconfig" "$u/share/man/man3"
echo other > "$u/lib/pkgconfig/other.pc"; echo other > "$u/include/other.h"; echo other > "$u/share/man/man3/other.3"
snap "$u" > "$d/before"
# include/pmu/*.h (the inline read path's headers) are installed with pmu.h.
run sub-headers sh -c "make -s install PREFIX=$u >/dev/null && for h in include/pmu/*.h; do
	[ ! -e \"\$h\" ] || cmp \"\$h\" $u/\$h || exit 1; done"
make -s uninstall PREFIX="$u" > "$d/uninstall.out" 2>&1
snap "$u" > "$d/after"
run uninstall-exact diff "$d/before" "$d/after"
run uninstall-files sh -c "make -s uninstall PREFIX=$p && [ -z \"\$(find $p ! -type d)\" ]"

# Installed again over itself: the same files, links and contents.
sums() { (cd "$1" && find . -printf '%p %l %m\n' | sort && find . -type f | sort | xargs md5sum); }
idempotent() {
	make -s install PREFIX=$p >/dev/null 2>&1 && sums $p > $d/sum1 && make -s install PREFIX=$p >/dev/null 2>&1 &&
		sums $p > $d/sum2 && diff $d/sum1 $d/sum2
}
run idempotent idempotent
# The directories that were there keep their modes: an install into $d/keep/x, a sticky directory
# anyone may write (as /tmp is), leaves it so, and so does its uninstall.
run keeps-modes sh -c "mkdir -m 1777 $d/keep && make -s install PREFIX=$d/keep/x >/dev/null 2>&1 &&
	[ \"\$(stat -c %a $d/keep)\" = 1777 ] && [ \"\$(stat -c %a $d/keep/x/lib)\" = 755 ] &&
	make -s uninstall PREFIX=$d/keep/x && [ \"\$(stat -c %a $d/keep)\" = 1777 ] && [ ! -e $d/keep/x ]"
# No Python (PYTHON empty): no package, said once; the rest installs and uninstalls.
run no-python sh -c "make -s install PYTHON= PREFIX=$d/nopy > $d/nopy.out 2>&1 &&
	grep -qx 'libpmu: no Python package: PYTHON is empty' $d/nopy.out && [ -x $d/nopy/bin/pmu ] &&
	! ls -d $d/nopy/lib/python* 2>/dev/null && make -s uninstall PYTHON= PREFIX=$d/nopy && [ ! -e $d/nopy ]"
# Another build tree, targets in another order, in parallel.
run o-tree-any-order sh -c "make -s -j2 O=build-o install all PREFIX=$d/o >/dev/null 2>&1 && $d/o/bin/pmu version &&
	make -s O=build-o uninstall PREFIX=$d/o && [ ! -e $d/o ]"
# Another version installed first, with a manual page this one does not ship: both gone after this
# one is installed over it, which leaves what a clean install leaves.
old_version() {
	fresh_tree "$PWD" && mv "$tree" "$d/old" &&
		sed -i 's/^#define PMU_VERSION_PATCH .*/#define PMU_VERSION_PATCH 99/' "$d/old/include/pmu.h" &&
		cp man/pmu_open.3 "$d/old/man/pmu_gone.3" &&
		make -s -C "$d/old" install PREFIX="$d/ov" >/dev/null 2>&1 && ls "$d/ov/share/man/man3/pmu_gone.3" >/dev/null &&
		make -s install PREFIX="$d/ov" >/dev/null 2>&1 || return 1
	ls "$d/ov/lib" "$d/ov/share/man/man3" | grep -E '0\.99|pmu_gone' && return 1
	make -s install PREFIX="$d/clean" >/dev/null 2>&1 && (cd "$d/ov" && find . | sort) > "$d/ov.list" &&
		(cd "$d/clean" && find . | sort) > "$d/clean.list" && diff "$d/clean.list" "$d/ov.list"
}
run over-other-version old_version
# A prefix that cannot be written: one line naming it, nothing copied. As root, by nobody (root
# writes anywhere), in a tree of nobody's.
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null; then
	mkdir "$d/ro" && fresh_tree "$PWD" && mv "$tree" "$d/nb" && chown -R nobody "$d/nb" && chmod 755 "$d" &&
	run not-writable sh -c "! runuser -u nobody -- make -s -C $d/nb install PREFIX=$d/ro/x > $d/ro.out 2>&1 &&
		grep -x 'libpmu: cannot install into $d/ro/x/[a-z]*: $d/ro is not writable (choose another PREFIX, or run as its owner)' $d/ro.out &&
		[ -z \"\$(ls -A $d/ro)\" ]"
else
	run not-writable sh -c "mkdir $d/ro && chmod 555 $d/ro && ! make -s install PREFIX=$d/ro/x > $d/ro.out 2>&1 &&
		grep -x 'libpmu: cannot install into $d/ro/x/[a-z]*: $d/ro is not writable (choose another PREFIX, or run as its owner)' $d/ro.out &&
		[ -z \"\$(ls -A $d/ro)\" ]"
fi
run not-a-directory sh -c "touch $d/file && ! make -s install PREFIX=$d/file/x > $d/nd.out 2>&1 &&
	grep -x 'libpmu: cannot install into $d/file/x/[a-z]*: $d/file is not a directory' $d/nd.out"
# libpmu.pc's Libs.private names each library libpmu.so.0 needs, but the C library's own.
run pc-needs sh -c "readelf -d $p/lib/libpmu.so.0 | sed -n 's/.*NEEDED.*\[lib\([a-z]*\)\.so.*/\1/p' | grep -vx 'c\|ld-linux.*' |
	while read -r l; do grep -q \"^Libs.private:.* -l\$l \" $p/lib/pkgconfig/libpmu.pc || { echo \"no -l\$l\"; exit 1; }; done"
# Cross builds: no Python package for the host's python3, said so; the documented shared and static
# links (pkg-config, as docs/install.md says) for that ISA; the static program starts under
# qemu-user (which has no perf_event_open: it says so, and does not crash).
for a in aarch64 riscv64; do
	cc=$a-linux-gnu-gcc
	command -v $cc >/dev/null || { sk cross-$a "$cc is not installed"; continue; }
	x=$d/cross-$a
	run cross-$a-install sh -c "make -s O=build-$a CC=$cc install PREFIX=$x > $x.out 2>&1 &&
		grep -q '^libpmu: no Python package: .* is for x86_64-linux-gnu and $cc builds for $a-linux-gnu' $x.out &&
		! ls -d $x/lib/python* 2>/dev/null && readelf -h $x/lib/libpmu.so.0 | grep -q 'Machine:.*\(AArch64\|RISC-V\)'"
	run cross-$a-links sh -c "export PKG_CONFIG_PATH=$x/lib/pkgconfig &&
		$cc -o $x-count examples/count.c \$(pkg-config --cflags --libs libpmu) -Wl,-rpath,$x/lib &&
		$cc -static -o $x-count-static examples/count.c \$(pkg-config --static --cflags --libs libpmu)"
	if command -v qemu-$a-static >/dev/null; then
		run cross-$a-runs sh -c "qemu-$a-static $x-count-static task-clock > $x.run 2>&1; r=\$?; cat $x.run;
			[ \$r -eq 0 ] || { [ \$r -eq 1 ] && grep -q 'task-clock' $x.run; }"
	else
		sk cross-$a-runs "qemu-$a-static is not installed"
	fi
	run cross-$a-uninstall sh -c "make -s O=build-$a CC=$cc uninstall PREFIX=$x && [ ! -e $x ]"
done

closing
[ $fail -eq 0 ]
