#!/bin/sh
# Builds the Debian packages from a copy of the tree (dpkg-buildpackage writes
# to the parent directory) and checks them: the packages, what each
# holds, lintian without errors. The tests themselves are the host tier's, so
# the package build skips them (nocheck).
#   test/deb.sh [DIR]   also copies the .deb files and lintian's output to DIR
# Prints "deb: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
out=$1
T_TIER=deb T_PREFIX=deb/
. test/lib.sh
for c in dpkg-buildpackage dh lintian; do
	if ! command -v $c >/dev/null; then
		sk packages "$c is not installed (apt-get install dpkg-dev debhelper lintian)"
		closing
		exit 0
	fi
done
if ! dpkg-checkbuilddeps >/dev/null 2>&1; then
	sk packages "build dependencies missing: $(dpkg-checkbuilddeps 2>&1 | sed 's/.*: //')"
	closing
	exit 0
fi
d=$(mktemp -d)
trap 'rm -rf "$d" "$T_OUT"' EXIT

v=$(dpkg-parsechangelog -S Version)
a=$(dpkg-architecture -qDEB_HOST_ARCH)
m=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
up=$(for x in MAJOR MINOR PATCH; do sed -n "s/^#define PMU_VERSION_$x //p" include/pmu.h; done | paste -sd.)
src=$d/libpmu-$up
# A fresh tree (test/lib.sh), named as dpkg-source wants it.
fresh_tree "$PWD" && mv "$tree" "$src" || { fail=1; closing "cannot copy the tree"; exit 1; }
# debian/changelog follows the version in include/pmu.h.
run changelog [ "${v%-*}" = "$up" ]
run build sh -c "cd $src && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b > $d/build.log 2>&1 ||
	{ tail -n 20 $d/build.log; exit 1; }"

# has DEB PATH...: each path is in the package.
has() { deb=$d/$1_${v}_$a.deb; shift; [ -f "$deb" ] || { echo "no $deb"; return 1; }
	dpkg -c "$deb" > "$deb.list" || return 1
	for f; do grep -q " \./$f\( ->.*\)\?\$" "$deb.list" || { echo "$f not in $(basename "$deb")"; return 1; }; done; }
run libpmu0 has libpmu0 usr/lib/$m/libpmu.so.0 usr/lib/$m/libpmu.so.$up
run libpmu-dev has libpmu-dev usr/include/pmu.h usr/lib/$m/libpmu.so usr/lib/$m/libpmu.a \
	usr/lib/$m/pkgconfig/libpmu.pc usr/lib/$m/cmake/libpmu/libpmuConfig.cmake \
	usr/lib/$m/cmake/libpmu/libpmuConfigVersion.cmake usr/share/man/man3/pmu_open.3.gz usr/share/man/man7/libpmu-qemu.7.gz usr/share/man/man7/libpmu-python.7.gz \
	usr/share/doc/libpmu-dev/LICENSE
run libpmu-tools has libpmu-tools usr/bin/pmu usr/share/man/man1/pmu.1.gz usr/lib/$m/libpmu/libpmu-omp.so \
	usr/lib/$m/libpmu/libpmu-kokkos.so usr/lib/$m/libpmu/libpmu-qemu.so usr/share/man/man1/pmu-emulate.1.gz \
	$(pkg-config --exists valgrind && echo usr/lib/$m/libpmu/libpmu-valgrind)
run libpmu-mpi has libpmu-mpi usr/lib/$m/libpmu/libpmu-mpi.so
# python3-pmu: the package with its extension for Debian's python3, and the entry point pytest reads.
ext=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
py=usr/lib/python3/dist-packages
run python3-pmu has python3-pmu $py/pmu/__init__.py $py/pmu/pytest_plugin.py $py/pmu/_version.py "$py/pmu/_pmu$ext" \
	$py/libpmu-$up.egg-info/entry_points.txt
run python3-pmu-depends sh -c "dpkg-deb -f $d/python3-pmu_${v}_$a.deb Depends | tr ',' '\\n' | grep -qx ' *libpmu0 (= $v)' &&
	dpkg-deb -f $d/python3-pmu_${v}_$a.deb Depends | grep -q 'python3'"
# The runtimes' plugins link libpmu.so.0's private node of this exact version: libpmu-tools needs
# the same libpmu0. The tool itself stands alone (libpmu.a).
run tools-depends sh -c "dpkg-deb -f $d/libpmu-tools_${v}_$a.deb Depends | tr ',' '\\n' | grep -qx ' *libpmu0 (= $v)' &&
	dpkg-deb --fsys-tarfile $d/libpmu-tools_${v}_$a.deb | tar -xOf - ./usr/lib/$m/libpmu/libpmu-omp.so > $d/omp.bin &&
	readelf -V $d/omp.bin | grep -q 'LIBPMU_PRIVATE_' &&
	dpkg-deb --fsys-tarfile $d/libpmu-tools_${v}_$a.deb | tar -xOf - ./usr/bin/pmu > $d/pmu.bin &&
	! readelf -d $d/pmu.bin | grep -q 'NEEDED.*libpmu'"
# The shared library is in libpmu0 alone (a -dev file there would break co-installation).
run split sh -c "! grep -q '\./usr/lib/[^ ]*/libpmu\.so\.0' $d/libpmu-dev_${v}_$a.deb.list && ! grep -q '/include/' $d/libpmu0_${v}_$a.deb.list"
# Every symbol of src/libpmu.map is in debian/libpmu0.symbols (dpkg-gensymbols
# would only warn), each once, and the package carries that file.
run symbols sh -c "dpkg-deb -I $d/libpmu0_${v}_$a.deb symbols | grep -q '^ pmu_read@LIBPMU_0 ' &&
	{ ! sort debian/libpmu0.symbols | uniq -d | grep .; } &&
	for s in \$(sed -n 's/^[[:space:]]*\(pmu_[a-z0-9_]*\);/\1/p' src/libpmu.map); do
		grep -q \"^ \$s@LIBPMU_\" debian/libpmu0.symbols || { echo \"\$s is not in debian/libpmu0.symbols\"; exit 1; }; done"
run lintian sh -c "lintian -I $d/libpmu_${v}_$a.changes > $d/lintian.txt 2>&1; cat $d/lintian.txt; ! grep -q '^E:' $d/lintian.txt"
echo "deb: lintian: $(grep -c '^E:' "$d/lintian.txt") errors, $(grep -c '^W:' "$d/lintian.txt") warnings, $(grep -c '^I:' "$d/lintian.txt") info"
if [ -n "$out" ]; then
	mkdir -p "$out" && cp "$d"/*.deb "$d"/*.changes "$d/lintian.txt" "$d/build.log" "$out"/ && echo "deb: packages in $out"
fi
closing
[ $fail -eq 0 ]
