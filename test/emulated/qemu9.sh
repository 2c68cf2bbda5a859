# SPDX-License-Identifier: MIT
# Sourced by test/emulated.sh: libpmu-qemu under a QEMU >= 9 (plugin API 2 and later), the x86_64
# linux-user target of Debian 13's own qemu source package, built with plugins once and cached
# (test/emulated/qemu_setup.sh), in the Debian 13 root it was built in: a fresh tree built there,
# emu_exact exact and the same in three runs, and pmu stat naming that QEMU.
qroot=${PMU_QEMU_CACHE:-${HOME:-/root}/.cache/libpmu-qemu}/root
if [ "$(id -u)" -ne 0 ]; then
	sk qemu9 "the Debian 13 build root is entered with chroot, as root"
elif ! test/emulated/qemu_setup.sh > "$d/qsetup" 2>&1; then
	sk qemu9 "$(sed -n 's/^SKIP: //p' "$d/qsetup" | tail -n 1)"
elif ! fresh_tree "$PWD" || ! mv "$tree" "$qroot/w.$$"; then
	fail=$((fail + 1)); echo "FAIL $T_PREFIX""qemu9: cannot copy the tree into $qroot"
else
	echo "# $(cat "$qroot/../ready"), built from Debian 13's source"
	inqemu() {
		lim unshare --mount --propagation private sh -c '
			r=$1; mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" || exit 1
			exec chroot "$r" env -i PATH=/opt/qemu:/usr/bin:/bin HOME=/root sh -ec "cd /w.$3 && $2"' sh "$qroot" "$1" $$
	}
	run qemu9-build inqemu "make -s -j2 build/pmu build/libpmu-qemu.so build/test/emu_exact && qemu-x86_64 --version"
	run qemu9-exact inqemu "for i in 1 2 3; do ./build/pmu emulate --backend qemu build/test/emu_exact > r\$i; done; cat r1;
		grep -q 'emulated (QEMU 10\\.[0-9.]* user mode, x86_64, libpmu-qemu)' r1 && cmp r1 r2 && cmp r1 r3"
	run qemu9-stat inqemu "./build/pmu stat --emulate=qemu -e instructions -r 3 -j -o s.json -- /bin/true && cat s.json &&
		grep -q '\"variance\" : 0.00, \"runs\" : 3, \"emulated\" : \"QEMU 10' s.json"
	# The counts and constants are the host's, but for the program's own build (Debian 13's gcc).
	rm -rf "$qroot/w.$$"
fi
