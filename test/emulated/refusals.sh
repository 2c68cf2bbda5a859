# SPDX-License-Identifier: MIT
# Sourced by test/emulated.sh: every QEMU that cannot count, named before the program runs, and
# no count printed (pmu emulate and pmu stat --emulate): not installed, a static build, no plugin
# support, the plugin missing, of another API version, or not attaching; then bad programs and
# events. Each message names the case, the QEMU found (path and version) and what to do instead.

# fake NAME VERSION [-static] [-plugin]: a qemu-x86_64 in $d/NAME that answers --version and -h.
fake() {
	mkdir -p "$d/$1" && cat > "$d/$1/fake.c" <<C
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--version"))
		return puts("qemu-x86_64 version $2"), 0;
	if (argc > 1 && !strcmp(argv[1], "-h"))
		return puts("usage: qemu-x86_64 [options] program [arguments...]\n-h print this help\n-d item log items"), 0;
	return fprintf(stderr, "qemu-x86_64: unknown option '%s'\n", argc > 1 ? argv[1] : ""), 1;
}
C
	cc $3 -o "$d/$1/qemu-x86_64" "$d/$1/fake.c"
}
# refused NAME ENV WHAT...: pmu emulate and pmu stat --emulate (QEMU asked for) with ENV exit
# non-zero, print no count, and say each WHAT (grep -E patterns).
refused() {
	n=$1 env=$2
	shift 2
	run "$n" sh -c '
		d=$1 pmu=$2 env=$3; shift 3
		env $env $pmu emulate --backend qemu /bin/true > $d/out 2> $d/err && { echo "pmu emulate exited 0"; exit 1; }
		env $env $pmu stat --emulate=qemu -e instructions -- /bin/true >> $d/out 2>> $d/err && { echo "pmu stat exited 0"; exit 1; }
		cat $d/err
		! grep -E "[0-9] +instructions|instructions.*[0-9]{2}" $d/out || { echo "a count was printed"; exit 1; }
		for w; do grep -qE "$w" $d/err || { echo "no \"$w\""; exit 1; }; done' sh "$d" "$pmu" "$env" "$@"
}

refused no-qemu "PATH=/nonexistent" 'qemu-x86_64 is not installed \(apt-get install qemu-user\)'
if fake static 10.0.13 -static 2> "$d/cc"; then
	refused static-qemu "PATH=$d/static:$PATH" "$d/static/qemu-x86_64 \\(QEMU 10.0.13\\) is a static build, which cannot load plugins" \
		'use --backend valgrind'
else
	sk static-qemu "no static libc to build a fake static QEMU: $(head -c 200 "$d/cc")"
fi
fake noplugin 9.2.0
refused no-plugin-support "PATH=$d/noplugin:$PATH" "$d/noplugin/qemu-x86_64 \\(QEMU 9.2.0\\) was built without plugin support" \
	'configured with --enable-plugins'
if [ -n "$qemu" ]; then
	refused plugin-missing "PMU_QEMU_PLUGIN=$d/none.so" "QEMU [0-9.]+\\) found, but no plugin for it: PMU_QEMU_PLUGIN=$d/none.so: No such file"
	if cc -shared -fPIC -Isrc -Iinclude -Isrc/uapi -D_GNU_SOURCE -DPLUGIN_API=99 -o "$d/v99.so" emulation/qemu.c 2>"$d/cc"; then
		refused plugin-version "PMU_QEMU_PLUGIN=$d/v99.so" "did not attach $d/v99.so" 'version 99' \
			"the plugin's API does not match this QEMU's"
	else
		sk plugin-version "the plugin did not build with another API version: $(head -c 200 "$d/cc")"
	fi
	# A plugin QEMU loads, whose install refuses: it never attaches.
	printf 'int qemu_plugin_version = 1;\nint qemu_plugin_install(void) { return -1; }\n' > "$d/noattach.c"
	cc -shared -fPIC -o "$d/noattach.so" "$d/noattach.c"
	refused no-attach "PMU_QEMU_PLUGIN=$d/noattach.so" "qemu-x86_64 \\(QEMU [0-9.]+\\) did not attach $d/noattach.so"
else	# Debian 13's and Ubuntu 26.04's qemu-user: static
	refused installed-qemu "PATH=$PATH" "$(command -v qemu-x86_64 || echo qemu-x86_64) (\\(QEMU [0-9.]+\\) is a static build|\\(QEMU [0-9.]+\\) was built without|is not installed)"
fi
# Where no backend counts, both reasons, and nothing counted.
run no-backend sh -c "! PATH=$d/noplugin:$PATH PMU_VALGRIND_TOOL=$d/none $pmu stat --emulate -e instructions -- /bin/true > $d/out 2>&1;
	cat $d/out; grep -q 'no emulation backend counts here, so nothing is counted' $d/out &&
	grep -q '  valgrind: PMU_VALGRIND_TOOL=$d/none: No such file' $d/out && ! grep -q '[0-9] *instructions' $d/out"
run bad-backend sh -c "! $pmu emulate --backend bochs /bin/true 2> $d/e; cat $d/e; grep -q -- '--backend bochs: not a backend (qemu or valgrind)' $d/e"

# Bad programs and events, each named: a program QEMU cannot run, a hardware event, a script.
head -c 200 /bin/true > "$d/broken" && chmod +x "$d/broken"
run bad-program sh -c "! $pmu emulate $d/broken 2> $d/e; cat $d/e; grep -Eqi 'qemu|valgrind' $d/e"
run hw-event sh -c "! $pmu stat --emulate -e cycles -- /bin/true 2> $d/e; cat $d/e;
	grep -Eq 'cycles: not counted under emulation \((QEMU|Valgrind) .*\): it counts instructions only' $d/e"
run script sh -c "printf '#!/bin/sh\ntrue\n' > $d/s.sh && chmod +x $d/s.sh && ! $pmu emulate $d/s.sh 2> $d/e; cat $d/e;
	grep -q 'not an ELF program (a script? name its interpreter' $d/e"

# pmu check lists the backends: which count here, and why the others do not.
run check-backends sh -c "PATH=$d/noplugin:$PATH $pmu check -e task-clock > $d/chk; cat $d/chk;
	grep -q '^  qemu      no: $d/noplugin/qemu-x86_64 (QEMU 9.2.0) was built without plugin support' $d/chk &&
	grep -Eq '^  valgrind  (counts: Valgrind [0-9.]+ \(/.*/libpmu-valgrind\)|no: .+)$' $d/chk &&
	$pmu check -e task-clock | grep -Eq '^  (qemu      counts: QEMU|valgrind  counts: Valgrind) [0-9.]+ \(/'"
