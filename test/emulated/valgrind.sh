# SPDX-License-Identifier: MIT
# Sourced by test/emulated.sh where libpmu-valgrind counts: the Valgrind backend as a user runs it.
# emu_exact (threads, fork, regions) is run by the tier itself, beside QEMU's.

# pmu stat: exact and repeatable (-r 3, variance 0), the note and the JSON naming Valgrind.
head -c 100000 /dev/urandom | base64 > "$d/vgdata"	# gzip: every Debian has it (Essential)
run vg-stat-runs sh -c "$pmu stat --emulate=valgrind -e instructions -r 3 -j -o $d/vg.json -- gzip -9 -c $d/vgdata > /dev/null &&
	cat $d/vg.json && grep -q '\"event\" : \"instructions\", \"variance\" : 0.00, \"runs\" : 3, \"emulated\" : \"Valgrind [0-9.]*, x86_64, libpmu-valgrind' $d/vg.json"
run vg-stat-table sh -c "$pmu stat --emulate=valgrind -e instructions -- /bin/true 2>&1 |
	tee /dev/stderr | grep -q 'instructions: emulated (Valgrind [0-9.]*, x86_64, libpmu-valgrind): counted by emulation, not by a PMU'"
# A region report says which backend counted.
run vg-region-report sh -c "cd $d && PMU_EVENTS=instructions PMU_REPORT=vgr.json $pmu emulate --backend valgrind $PWD/$O/examples/zero_code &&
	cat vgr.json && grep -q '\"emulated\": \"Valgrind' vgr.json && grep -q '\"calls\": 200' vgr.json"
# After an exec Valgrind no longer runs the program: it finds no table, and counts nothing as emulated.
run vg-after-exec sh -c "$pmu emulate --backend valgrind /bin/sh -c 'exec $PWD/$O/test/emu_exact' > $d/vgexec; st=\$?; cat $d/vgexec;
	[ \$st = 77 ] && grep -q 'instructions does not open' $d/vgexec"
# pmu check under the backend names it.
run vg-check sh -c "$pmu emulate --backend valgrind $pmu check -e instructions > $d/vgcheck; cat $d/vgcheck;
	grep -q 'emulated: instructions counted by Valgrind' $d/vgcheck"
