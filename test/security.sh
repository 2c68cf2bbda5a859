#!/bin/sh
# The security tier: what another user can do to a program that links
# libpmu or to the pmu tool. As root, with nobody as the other user:
#  - a setuid-root and a cap_perfmon copy of a program linking libpmu, run by
#    nobody with PMU_EVENTS, PMU_REPORT and PMU_SYSFS_DEVICES set: nothing
#    written, no zero-code mode, the planted tree not read;
#  - a symlink nobody planted at the name of root's report (zero-code mode,
#    pmu stat -o, pmu report merge -o): the link's target untouched;
#  - hostile thread names (prctl), region names and sysfs contents through
#    every output format: json parses with python3, csv round-trips through
#    python3's csv, no raw ESC or C1 in table output and messages;
#  - a host name of .. in a UTS namespace: %h stays inside its directory;
#  - a read in a signal handler in a forked child allocates nothing;
#  - an unreadable tracefs is a permission error.
# Skips, saying why, where the runner is not root; each part skips alone
# where its tool (setcap, unshare, python3) is missing.
cd "$(dirname "$0")/.." || exit 1
T_TIER=security
. test/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	skip=1
	closing "running as $(id -un): the tier needs root (setuid copies, another user, namespaces)"
	exit 0
fi
user=nobody
group=$(id -gn "$user" 2>/dev/null)
if [ -z "$group" ] || ! command -v setpriv >/dev/null; then
	skip=1
	closing "needs user $user and setpriv (util-linux)"
	exit 0
fi
as_user() { lim setpriv --reuid="$user" --regid="$group" --clear-groups --inh-caps=-all -- "$@"; }
if ! make -s --no-print-directory all tests >/dev/null; then
	fail=1
	closing "the build failed"
	exit 1
fi
have_py=0
python3 -c 'import json, csv' 2>/dev/null && have_py=1
CC=${CC:-cc}
pmu=$PWD/build/pmu

tmp=$(mktemp -d /tmp/pmu-security.XXXXXX) || exit 1
trap 'rm -rf "$tmp" "$T_OUT"' EXIT
chmod 755 "$tmp"

# The linking program: zero-code mode linked in; "attr EV" resolves an event, "regions" names hostile regions.
cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "pmu.h"
int main(int argc, char **argv)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	static const char *const names[] = { "q\"uote,comma", "new\nline", "esc\x1b]0;pwn\x07", "csi\xc2\x9bx",
					     "caf\xe9", "tab\there", "<script>alert(1)</script>",
					     "<img src=x onerror=alert(1)>" };

	printf("libpmu %s\n", pmu_version());
	if (argc == 3 && !strcmp(argv[1], "attr") && pmu_event_attr(argv[2], &a) < 0)
		printf("%s\n", pmu_errmsg());
	if (argc == 3 && !strcmp(argv[1], "regions")) {
		if (pmu_thread_init("task-clock") < 0)
			return 2;
		for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			pmu_region_begin(names[i]);
			pmu_region_end(names[i]);
		}
		return pmu_report_path(argv[2], NULL) < 0;
	}
	return 0;
}
EOF
if ! $CC -std=gnu11 -Iinclude -o "$tmp/prog" "$tmp/prog.c" build/libpmu.a -Wl,-u,pmu__zero_linked -lpthread -lm \
	2>"$tmp/cc.err"; then
	fail=1
	closing "cannot build the linking program: $(tail -n 3 "$tmp/cc.err")"
	exit 1
fi

# A directory nobody cannot write, with a root file of mode 0600 in it, and a crafted sysfs tree
# whose alias is a link to a root-only file.
mkdir -m 755 "$tmp/rootonly" "$tmp/tree" && printf 'secret\n' >"$tmp/rootonly/existing" &&
	chmod 600 "$tmp/rootonly/existing" && printf 'event=0x99,secret-bytes\n' >"$tmp/rootonly/alias" &&
	chmod 600 "$tmp/rootonly/alias" && mkdir -p "$tmp/tree/cpu/events" "$tmp/tree/cpu/format" &&
	echo 4 >"$tmp/tree/cpu/type" && echo config:0-7 >"$tmp/tree/cpu/format/event" &&
	ln -s "$tmp/rootonly/alias" "$tmp/tree/cpu/events/leak" && chmod -R a+rX "$tmp/tree" || exit 1
hostile_env="PMU_EVENTS=task-clock:k PMU_SYSFS_DEVICES=$tmp/tree PMU_TRACEFS=$tmp/tree"

# 1. A setuid-root copy run by nobody: no report made, none written over, the tree not read.
privileged() {	# $1: the copy
	rm -f "$tmp/rootonly/owned.csv"
	out=$(as_user env -i PATH="$PATH" sh -c "umask 000; $hostile_env PMU_REPORT='$tmp/rootonly/owned.csv' '$1'; \
		$hostile_env PMU_REPORT='$tmp/rootonly/existing' '$1'; \
		$hostile_env PMU_REPORT=stderr '$1' attr cpu/leak/" 2>&1)
	bad=0
	[ -e "$tmp/rootonly/owned.csv" ] && bad=1
	[ "$(cat "$tmp/rootonly/existing")" = secret ] || bad=1
	printf '%s\n' "$out" | grep -q 'libpmu report\|secret-bytes\|0x99' && bad=1
}
cp "$tmp/prog" "$tmp/suid" && chown root:root "$tmp/suid" && chmod 4755 "$tmp/suid"
privileged "$tmp/suid"
check "setuid-root copy run by nobody: PMU_EVENTS, PMU_REPORT, PMU_SYSFS_DEVICES ignored" "$bad" \
	"$out$(ls -l "$tmp/rootonly")"

# 2. A cap_perfmon copy: the same, and no kernel counting from PMU_EVENTS=task-clock:k.
if command -v setcap >/dev/null && cp "$tmp/prog" "$tmp/capped" && chmod 755 "$tmp/capped" &&
   setcap cap_perfmon=ep "$tmp/capped" 2>/dev/null; then
	privileged "$tmp/capped"
	check "cap_perfmon copy run by nobody: no zero-code mode, no kernel counting" "$bad" "$out"
else
	sk "cap_perfmon copy" "setcap (libcap2-bin) is not installed or the file system takes no capabilities"
fi

# 2b. A setuid-root copy of pmu: emulation runs programs PATH and the environment name, so it
#     refuses (pmu emulate) and is not looked at (pmu check); nobody's "QEMU" never runs.
cp build/pmu "$tmp/suid-pmu" && chown root:root "$tmp/suid-pmu" && chmod 4755 "$tmp/suid-pmu" &&
	mkdir -p "$tmp/evil" && printf '#!/bin/sh\ntouch %s/evil/ran\n' "$tmp" > "$tmp/evil/qemu-x86_64" &&
	cp "$tmp/evil/qemu-x86_64" "$tmp/evil/valgrind" && chmod 777 "$tmp/evil" && chmod 755 "$tmp/evil/qemu-x86_64" "$tmp/evil/valgrind"
out=$(as_user env -i PATH="$tmp/evil:$PATH" PMU_QEMU_PLUGIN=/dev/null sh -c "'$tmp/suid-pmu' emulate /bin/true; echo status \$?;
	'$tmp/suid-pmu' check -e task-clock" 2>&1)
[ ! -e "$tmp/evil/ran" ] && printf '%s\n' "$out" | grep -q 'pmu emulate: this pmu runs with privileges' &&
	printf '%s\n' "$out" | grep -q '^status [1-9]' && printf '%s\n' "$out" | grep -q '  not looked at: this pmu runs with privileges'
check "setuid-root pmu run by nobody: emulation refused, nothing from PATH run" $? "$out"

# 3. A symlink planted by nobody at the name of root's report, in a directory nobody may write
#    (group-writable: fs.protected_symlinks does not cover it).
mkdir -m 775 "$tmp/shared" && chgrp "$group" "$tmp/shared" && printf 'precious\n' >"$tmp/rootonly/victim"
as_user ln -s "$tmp/rootonly/victim" "$tmp/shared/report.json"
as_user ln -s "$tmp/rootonly/victim" "$tmp/shared/stat.txt"
as_user ln -s "$tmp/rootonly/victim" "$tmp/shared/merged.json"
PMU_EVENTS=task-clock PMU_REPORT="$tmp/shared/report.json" lim "$tmp/prog" >/dev/null 2>&1
lim "$pmu" stat -e task-clock -o "$tmp/shared/stat.txt" true >/dev/null 2>&1
lim "$pmu" report merge -o "$tmp/shared/merged.json" test/fixtures/reports/a.json >/dev/null 2>&1
r=0
[ "$(cat "$tmp/rootonly/victim")" = precious ] || r=1
for f in report.json stat.txt merged.json; do [ -f "$tmp/shared/$f" ] && [ ! -L "$tmp/shared/$f" ] || r=1; done
check "a planted symlink at a report's name (zero-code, pmu stat -o, pmu report merge -o) is replaced" "$r" \
	"$(ls -l "$tmp/shared"; head -c 200 "$tmp/rootonly/victim")"

# 4. Hostile names through every format.
jsonok() { python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()] if sys.argv[2] == "lines" else json.load(open(sys.argv[1], encoding="utf-8"))' "$1" "$2" 2>&1; }
rawesc() { LC_ALL=C grep -c "$(printf '\033')\|$(printf '\302\233')" "$1"; }
if [ $have_py = 1 ]; then
	# thread names of nobody's process, set with prctl(PR_SET_NAME), read from /proc by root's pmu stat
	cat >"$tmp/named.c" <<'EOF'
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	(void)argc;
	prctl(PR_SET_NAME, argv[1]);
	sleep(5);
	return 0;
}
EOF
	$CC -o "$tmp/named" "$tmp/named.c" || exit 1
	for name in 'x", "evil": "1' "$(printf 'e\033]0;pwn\007')" "$(printf 'new\nline')" "$(printf 'c\302\233x')"; do
		setpriv --reuid="$user" --regid="$group" --clear-groups --inh-caps=-all -- "$tmp/named" "$name" &
		pid=$!
		sleep 0.2
		lim "$pmu" stat -j --per-thread -p $pid -e task-clock -o "$tmp/t.json" sleep 0.1 >/dev/null 2>&1
		lim "$pmu" stat -x, --per-thread -p $pid -e task-clock -o "$tmp/t.csv" sleep 0.1 >/dev/null 2>&1
		lim "$pmu" stat --per-thread -p $pid -e task-clock -o "$tmp/t.txt" sleep 0.1 >/dev/null 2>&1
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		sed -i '/^# started on/d; /^$/d' "$tmp/t.json" "$tmp/t.csv"
		e1=$(jsonok "$tmp/t.json" lines)
		e2=$(python3 -c 'import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], newline="")) if r]
want = sys.argv[2] + "-" + sys.argv[3]
sys.exit(0 if rows and all(r[0] == want for r in rows) else "csv rows: %r, expected %r" % (rows, want))' "$tmp/t.csv" "$name" "$pid" 2>&1)
		e3=$(python3 -c 'import json, sys
names = [json.loads(l)["thread"] for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if names and all(n == sys.argv[2] + "-" + sys.argv[3] for n in names) else "json threads: %r" % names)' "$tmp/t.json" "$name" "$pid" 2>&1)
		n=$(rawesc "$tmp/t.txt")
		[ -z "$e1$e2$e3" ] && [ "$n" = 0 ]
		check "pmu stat --per-thread on a thread named $(printf '%s' "$name" | od -An -c | tr -s ' \n' ' ' | head -c 60): json, csv, table" $? \
			"$e1 $e2 $e3; raw escapes in the table: $n; $(cat "$tmp/t.json" "$tmp/t.csv" | head -c 600)"
	done

	# region names in the reports, and pmu report merge of the json one
	for f in reg.json reg.csv reg.txt reg.html; do lim "$tmp/prog" regions "$tmp/$f" >/dev/null; done
	e1=$(jsonok "$tmp/reg.json" whole)
	e2=$(python3 -c 'import csv, sys
names = {r[0] for r in csv.reader(open(sys.argv[1], newline="", encoding="utf-8", errors="surrogateescape"))}
want = {"q\"uote,comma", "new\nline", "esc\x1b]0;pwn\x07", "csi\x9bx", "tab\there"}
sys.exit(0 if want <= names else "csv names: %r" % names)' "$tmp/reg.csv" 2>&1)
	lim "$pmu" report merge -o "$tmp/m.json" "$tmp/reg.json" 2>"$tmp/m.err"
	lim "$pmu" report merge --format csv -o "$tmp/m.csv" "$tmp/reg.json" 2>>"$tmp/m.err"
	lim "$pmu" report merge "$tmp/reg.json" >"$tmp/m.txt" 2>>"$tmp/m.err"
	e3=$(jsonok "$tmp/m.json" whole)
	n=$(($(rawesc "$tmp/reg.txt") + $(rawesc "$tmp/m.txt") + $(rawesc "$tmp/m.err")))
	[ -z "$e1$e2$e3" ] && [ "$n" = 0 ]
	check "hostile region names: json parses, csv round-trips, tables escaped (report and pmu report merge)" $? \
		"$e1 $e2 $e3; raw escapes: $n"
	# the HTML reports: the names are text, no element or attribute of theirs (the report's and the merged one)
	lim "$pmu" report merge -o "$tmp/m.html" "$tmp/reg.json" 2>>"$tmp/m.err"
	e4=$(python3 -c 'import html.parser, sys
class P(html.parser.HTMLParser):
    bad, text = [], ""
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "img", "iframe") or any(a.startswith("on") for a, _ in attrs):
            self.bad.append(tag)
    def handle_data(self, d):
        self.text += d
for f in sys.argv[1:]:
    p = P()
    p.feed(open(f, encoding="utf-8").read())
    if p.bad or "<script>alert(1)</script>" not in p.text or "<img src=x onerror=alert(1)>" not in p.text:
        sys.exit("%s: elements %r; the names as text: %r" % (f, p.bad, "<script>" in p.text))' "$tmp/reg.html" "$tmp/m.html" 2>&1)
	n=$(($(rawesc "$tmp/reg.html") + $(rawesc "$tmp/m.html")))
	[ -z "$e4" ] && [ "$n" = 0 ]
	check "hostile region names in the HTML reports (report and pmu report merge): text, no element" $? \
		"$e4; raw escapes: $n"
	# a key of nobody's report, twice: the error escapes it
	printf '{"a\\u001b]0;pwn\\u0007": 1, "a\\u001b]0;pwn\\u0007": 2}\n' >"$tmp/dup.json"
	lim "$pmu" report merge "$tmp/dup.json" >/dev/null 2>"$tmp/dup.err"
	n=$(rawesc "$tmp/dup.err")
	check "pmu report merge: a hostile duplicate key is escaped in the error" "$n" "$(cat "$tmp/dup.err")"

	# sysfs contents in pmu list --sysfs
	mkdir -p "$tmp/tree2/cpu/events" "$tmp/tree2/cpu/format" && echo 4 >"$tmp/tree2/cpu/type" &&
		echo config:0-7 >"$tmp/tree2/cpu/format/event" &&
		printf 'event=0x3c\033]0;pwn\007\n' >"$tmp/tree2/cpu/events/esc" &&
		printf 'event=0x3d\n' >"$tmp/tree2/cpu/events/ok" &&
		printf '1e-3\302\233x\n' >"$tmp/tree2/cpu/events/ok.scale" &&
		printf 'ms\033[2J\n' >"$tmp/tree2/cpu/events/ok.unit"
	lim "$pmu" list --sysfs "$tmp/tree2" cpu/ >"$tmp/l.txt" 2>&1
	lim "$pmu" list --sysfs "$tmp/tree2" --json cpu/ >"$tmp/l.json" 2>&1
	e1=$(jsonok "$tmp/l.json" whole)
	n=$(rawesc "$tmp/l.txt")
	[ -z "$e1" ] && [ "$n" = 0 ]
	check "pmu list --sysfs: alias contents, scale and unit escaped; json parses" $? "$e1; raw escapes: $n; $(head -c 400 "$tmp/l.txt")"
else
	sk "hostile names" "python3 (json, csv) is not installed"
fi

# 5. A host name of .. in a UTS namespace (unshare -u): %h stays inside reports/.
if unshare -u true 2>/dev/null; then
	mkdir -p "$tmp/h/reports/__" "$tmp/h/reports/_"
	# hostname(1) refuses "..": the kernel takes it through /proc
	lim unshare -u sh -c "echo .. >/proc/sys/kernel/hostname && PMU_EVENTS=task-clock PMU_REPORT='$tmp/h/reports/%h/run-%r.json' '$tmp/prog'" >/dev/null 2>&1
	r=0
	ls "$tmp/h"/run-*.json >/dev/null 2>&1 && r=1
	ls "$tmp/h/reports/__"/run-*.json >/dev/null 2>&1 || r=1
	check "a host name of .. expands %h to __, inside reports/" $r "$(ls -R "$tmp/h")"
else
	sk "host name .." "unshare -u is not available"
fi

# 6. The fork/signal allocation count.
out=$(lim build/test/fork_signal 2>&1)
check "pmu_thread_read in a signal handler of a forked child allocates, locks and opens nothing" $? "$out"

# 7. tracefs there, its events directory unreadable: a permission error.
mkdir -p "$tmp/tfs/events" && chmod 700 "$tmp/tfs/events" && chmod 755 "$tmp/tfs"
out=$(as_user env -i PATH="$PATH" PMU_TRACEFS="$tmp/tfs" "$tmp/prog" attr sched:sched_switch 2>&1)
printf '%s\n' "$out" | grep -q 'sched:sched_switch: permission denied'
check "an unreadable tracefs events directory is a permission error" $? "$out"

closing
[ $fail -eq 0 ]
