#!/bin/sh
# The compat tier: libpmu-papi and libpmu-likwid run programs instrumented for
# PAPI's high-level API and LIKWID's marker API, unchanged, beside the real
# PAPI 7.0 where it can count. Each test prints PASS/FAIL/SKIP; the last line
# is "compat: N passed, N failed, N skipped". Tests skip, saying why, where
# libpapi-dev, papi-tools or likwid is missing.
#   test/compat.sh            (O=build-dir to use another build)
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
CC=${CC:-cc}
PAGES=100
EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS
T_TIER=compat
. test/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$T_OUT"' EXIT

make -s --no-print-directory O="$O" compat "$O/pmu" "$O/examples/zero_code" >/dev/null || { fail=1; closing "make compat failed"; exit 1; }
bin=$tmp/bin
mkdir -p "$bin"
export LD_LIBRARY_PATH="$PWD/$O${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
LINK="-L$PWD/$O -Wl,-rpath-link,$PWD/$O"
CFLAGS_T="-std=gnu11 -O2 -Wall -Wextra -Werror -pthread"

have_papi=no have_tools=no have_likwid=no have_real=no
[ -f /usr/include/papi.h ] || echo '#include <papi.h>' | $CC -E - >/dev/null 2>&1 && have_papi=yes
command -v papi_hl_output_writer >/dev/null && command -v python3 >/dev/null && have_tools=yes
example=/usr/share/likwid/examples/C-markerAPI.c
[ -f "$example" ] && echo '#include <likwid-marker.h>' | $CC -E - >/dev/null 2>&1 && have_likwid=yes
nopapi="libpapi-dev is not installed (papi.h)"
notools="papi-tools is not installed (papi_hl_output_writer), or python3"
nolikwid="likwid is not installed (likwid-marker.h, $example)"
if ! command -v python3 >/dev/null; then	# the JSON checks
	have_papi=no have_likwid=no
	nopapi="python3 is not installed (it reads the JSON)" nolikwid=$nopapi
fi

# protos: our prototypes against the installed papi.h and likwid.h.
if [ $have_papi = yes ] && [ $have_likwid = yes ]; then
	run protos sh -c "$CC $CFLAGS_T -Icompat/dropins -o $bin/protos test/compat/protos.c $LINK -lpmu-papi -lpmu-likwid && $bin/protos"
else
	sk protos "$([ $have_papi = yes ] && echo "$nolikwid" || echo "$nopapi")"
fi

# The PAPI program, compiled once against papi.h, linked with libpmu-papi and with the real libpapi.
if [ $have_papi = yes ]; then
	$CC $CFLAGS_T -c -o "$bin/papi_prog.o" test/compat/papi_prog.c &&
		$CC -o "$bin/prog_pmu" "$bin/papi_prog.o" $LINK -lpmu-papi -pthread || have_papi=broken
	if $CC -o "$bin/prog_papi" "$bin/papi_prog.o" -lpapi -pthread 2>/dev/null; then
		# real_run DIR ARGS...: the real PAPI's run of the program, in DIR
		real_run() { d=$1; shift; mkdir -p "$d" && (cd "$d" && lim env $REAL_ENV PAPI_EVENTS=${RE:-$EVENTS} "$bin/prog_papi" "$@"); }
		real_ok() { real_run "$tmp/real" $PAGES >"$tmp/real.out" 2>&1 && ! grep -q ': -' "$tmp/real.out" &&
			ls "$tmp/real"/papi_hl_output/rank_*.json >/dev/null 2>&1; }
		REAL_ENV=
		real_ok && have_real=yes
		why_real=$(papi_component_avail 2>/dev/null | grep -A1 '^Name: *perf_event ' | sed -n 's/.*Disabled: //p' | head -n 1)
		# Without a hardware PMU, PAPI's perf_event component disables itself: perf as libpfm4's core PMU lets it count.
		case $have_real/$why_real in no/*"no default PMU"*)
			if $CC -shared -fPIC -o "$bin/pfm_core.so" test/compat/pfm_core.c -ldl 2>/dev/null; then
				rm -rf "$tmp/real"
				REAL_ENV="LD_PRELOAD=$bin/pfm_core.so"
				real_ok && have_real=yes && echo "# the real PAPI 7.0 runs with test/compat/pfm_core.c preloaded: libpfm4 finds no core PMU here ($why_real)"
			fi ;;
		esac
		why_real="the real PAPI 7.0 counts nothing here ($EVENTS: its first PAPI_hl_region_begin gave $(sed -n 's/^outer begin: //p' "$tmp/real.out"); perf_event component: ${why_real:-see papi_component_avail})"
	else
		why_real="libpapi does not link"
	fi
fi
if [ $have_papi = yes ]; then
	# papi_json: the output's layout, regions, nesting, threads and page faults.
	run papi_json sh -c "cd $tmp && mkdir -p mine && cd mine && PAPI_OUTPUT_DIRECTORY=outdir PAPI_EVENTS=$EVENTS $bin/prog_pmu $PAGES >out &&
		[ ! -s out ] &&
		python3 $PWD/test/compat/papi_check.py json $PAGES outdir/papi_hl_output/rank_*.json"
	mine_json=$(ls "$tmp"/mine/outdir/papi_hl_output/rank_*.json 2>/dev/null | head -n 1)
	[ -n "$mine_json" ] && { echo "    # libpmu-papi's rank file:"; python3 -m json.tool "$mine_json" | sed -n '1,200p' | tr -d '\n' | sed 's/  */ /g' | fold -w 160 | head -n 12 | sed 's/^/    # /'; echo; }

	# papi_energy: rapl's and powercap's package energy on a stand-in power PMU (the software PMU's type,
	# cpu-clock as energy-pkg, one package): nJ and uJ of its 2^-32 J counts; PACKAGE1 left out, naming why.
	# The two names are two counters, read a moment apart: their figures are compared loosely.
	run papi_energy sh -c "cd $tmp && mkdir -p energy/fk/power/format energy/fk/power/events && cd energy &&
		echo 1 >fk/power/type && echo 0 >fk/power/cpumask && echo config:0-63 >fk/power/format/event &&
		echo event=0x0 >fk/power/events/energy-pkg &&
		PMU_SYSFS_DEVICES=\$PWD/fk PAPI_EVENTS=rapl:::PACKAGE_ENERGY:PACKAGE0,powercap:::ENERGY_UJ:ZONE0,rapl:::PACKAGE_ENERGY:PACKAGE1 \
			$bin/prog_pmu $PAGES >out 2>err; cat err; grep -q 'PACKAGE1.*left out' err && python3 -c '
import glob, json
rep = json.load(open(glob.glob(\"papi_hl_output/rank_*.json\")[0]))
d = rep[\"event_definitions\"]
assert d[\"rapl:::PACKAGE_ENERGY:PACKAGE0\"][\"component\"] == \"rapl\" and d[\"powercap:::ENERGY_UJ:ZONE0\"][\"component\"] == \"powercap\", d
r = rep[\"threads\"][\"0\"][\"regions\"][\"0\"]
v = lambda k: int(r[k][\"region_value\"] if isinstance(r[k], dict) else r[k])
nj, uj, ns = v(\"rapl:::PACKAGE_ENERGY:PACKAGE0\"), v(\"powercap:::ENERGY_UJ:ZONE0\"), v(\"real_time_nsec\")
print(\"region\", r[\"name\"], \"ns\", ns, \"nJ\", nj, \"uJ\", uj)
assert 0.05 * ns < nj < 0.5 * ns, (nj, ns)    # CPU 0s ns in 2^-32 J, as nJ: about ns x 0.2328
assert 0.5 < uj * 1000 / nj < 2, (uj, nj)     # uJ: a thousandth (two counters, read a moment apart)
'"

	# papi_codes: a region ended twice, and a bad name in PAPI_EVENTS, as PAPI answers them.
	cat >"$tmp/codes.want" <<-EOF
	begin 0
	end 0
	end again -1
	begin after -14
	end after -14
	stop -7
	EOF
	run papi_codes sh -c "cd $tmp && mkdir -p codes && cd codes &&
		PAPI_EVENTS=$EVENTS $bin/prog_pmu twice >codes 2>err; cat codes err;
		diff -u $tmp/codes.want codes && grep -q 'output generation is deactivated' err && [ ! -d papi_hl_output ] &&
		mkdir bad && cd bad && PAPI_EVENTS=$EVENTS,PAPI_NOT_AN_EVENT,perf::NO-SUCH-EVENT $bin/prog_pmu $PAGES >out 2>err; cat out err;
		[ ! -s out ] && grep -q '\"PAPI_NOT_AN_EVENT\"' err && grep -q '\"perf::NO-SUCH-EVENT\"' err &&
		python3 $PWD/test/compat/papi_check.py json $PAGES papi_hl_output/rank_*.json"

	# papi_report: PAPI_REPORT=1 prints the output on stdout; PMU_REPORT writes libpmu's report too, which pmu report merge takes.
	run papi_report sh -c "cd $tmp && mkdir -p rep && cd rep && PAPI_REPORT=1 PMU_REPORT=pmu-%p.json PAPI_EVENTS=$EVENTS $bin/prog_pmu $PAGES >stdout &&
		head -n 3 stdout | grep -q '^PAPI-HL Output:' && sed -n '/^{/,\$p' stdout >stdout.json &&
		python3 $PWD/test/compat/papi_check.py json $PAGES stdout.json && PMU_REPORT=pmu-%p.json PAPI_EVENTS=$EVENTS $bin/prog_pmu $PAGES &&
		ls pmu-*.json && [ \$(ls pmu-*.json | wc -l) -eq 2 ] && grep -q '\"name\": \"pages\"' pmu-*.json && grep -q '\"worker\"' pmu-*.json &&
		$PWD/$O/pmu report merge pmu-*.json >merged && cat merged && grep -q '^pages' merged"
else
	for t in papi_json papi_codes papi_report; do sk $t "$nopapi"; done
fi

# papi_misuse: an end before any begin, a read and an end of a region not open, as PAPI 7.0
# answers them (measured with Debian's libpapi 7.0: the expected lines below); with the real
# PAPI here, its own answers too. papi_outdir: a second run sets the first one's directory aside.
if [ $have_papi = yes ]; then
	cat >"$tmp/misuse.want" <<-EOF
	end-first: -14 0 0 0 0 0 0
	read-unmatched: 0 0 0 0 0 0 0
	end-unmatched: 0 0 0 0 0 -1 -14
	EOF
	run papi_misuse sh -c "$CC $CFLAGS_T -o $bin/misuse_pmu test/compat/papi_misuse.c $LINK -lpmu-papi && cd $tmp && mkdir -p misuse &&
		for m in end-first read-unmatched end-unmatched; do (cd misuse && rm -rf papi_hl_output &&
			PAPI_EVENTS=$EVENTS $bin/misuse_pmu \$m 2>>err && { [ \$m = end-unmatched ] || ls papi_hl_output/rank_*.json >/dev/null; }) || exit 1; done >misuse.out;
		cat misuse.out misuse/err; diff -u misuse.want misuse.out && grep -q 'no region has begun yet' misuse/err &&
		if [ $have_real = yes ] && $CC -o $bin/misuse_real test/compat/papi_misuse.c -lpapi -pthread; then
			for m in end-first read-unmatched end-unmatched; do env $REAL_ENV PAPI_EVENTS=$EVENTS $bin/misuse_real \$m 2>/dev/null; done >real.out &&
			diff -u real.out misuse.out && echo 'the real PAPI 7.0 answers the same'; fi"
	run papi_outdir sh -c "cd $tmp && mkdir -p outdir2 && cd outdir2 && PAPI_EVENTS=$EVENTS $bin/misuse_pmu none && sleep 1.1 &&
		PAPI_EVENTS=$EVENTS $bin/misuse_pmu none && ls -d papi_hl_output papi_hl_output-* && [ \$(ls papi_hl_output | wc -l) -eq 1 ] &&
		[ \$(ls -d papi_hl_output-2* | wc -l) -eq 1 ] && [ \$(ls papi_hl_output-2*/rank_*.json | wc -l) -eq 1 ]"
else
	for t in papi_misuse papi_outdir; do sk $t "$nopapi"; done
fi

# papi_fortran: the Fortran calls, gfortran's names and string lengths.
if ! command -v gfortran >/dev/null; then
	sk papi_fortran "gfortran is not installed"
else
	run papi_fortran sh -c "cd $tmp && mkdir -p f90 && cd f90 && gfortran -o $bin/papi_fortran $PWD/test/compat/papi_fortran.f90 $LINK -lpmu-papi &&
		PAPI_EVENTS=$EVENTS $bin/papi_fortran && grep -A1 '\"name\":\"fortran region\",\$' papi_hl_output/rank_*.json | grep -q '\"parent_region_id\":\"-1\"'"
fi

# papi_writer: papi_hl_output_writer reads libpmu-papi's output; its summary has the regions and page faults.
if [ $have_papi != yes ]; then
	sk papi_writer "$nopapi"
elif [ $have_tools != yes ]; then
	sk papi_writer "$notools"
else
	run papi_writer sh -c "cd $tmp/mine && papi_hl_output_writer --source outdir/papi_hl_output >summary.json &&
		cat summary.json && python3 $PWD/test/compat/papi_check.py summary $PAGES summary.json"
	[ -f "$tmp/mine/summary.json" ] && { echo "    # papi_hl_output_writer's summary of it:"; tr -d '\n' <"$tmp/mine/summary.json" | sed 's/  */ /g' | fold -w 160 | sed 's/^/    # /'; echo; }
fi

# papi_vs_real: the same program with the real libpapi: the same JSON, summary and return codes.
if [ $have_papi != yes ]; then
	sk papi_vs_real "$nopapi"
elif [ $have_tools != yes ]; then
	sk papi_vs_real "$notools"
elif [ $have_real != yes ]; then
	sk papi_vs_real "$why_real"
else
	# The values masked (parent IDs kept): the files compared line by line.
	cat >"$tmp/mask" <<-'EOF'
	/parent_region_id/!s/:"[0-9]*"/:N/
	EOF
	run papi_vs_real sh -c "cd $tmp/real && python3 $PWD/test/compat/papi_check.py json $PAGES $tmp/mine/outdir/papi_hl_output/rank_*.json papi_hl_output/rank_*.json &&
		sed -f $tmp/mask papi_hl_output/rank_*.json >real.masked && sed -f $tmp/mask $tmp/mine/outdir/papi_hl_output/rank_*.json >mine.masked &&
		diff -u real.masked mine.masked && echo 'the same file, line by line, but for the values' &&
		papi_hl_output_writer --source papi_hl_output >summary.json && python3 $PWD/test/compat/papi_check.py summary $PAGES $tmp/mine/summary.json summary.json &&
		mkdir codes bad && cd codes && env $REAL_ENV PAPI_EVENTS=$EVENTS $bin/prog_papi twice >codes 2>/dev/null; diff -u codes $tmp/codes/codes &&
		cd ../bad && env $REAL_ENV PAPI_EVENTS=$EVENTS,PAPI_NOT_AN_EVENT,perf::NO-SUCH-EVENT $bin/prog_papi $PAGES >out 2>/dev/null; diff -u out $tmp/codes/bad/out &&
		python3 $PWD/test/compat/papi_check.py json $PAGES $tmp/codes/bad/papi_hl_output/rank_*.json papi_hl_output/rank_*.json"
	real_json=$(ls "$tmp"/real/papi_hl_output/rank_*.json 2>/dev/null | head -n 1)
	[ -n "$real_json" ] && { echo "    # the real PAPI's rank file:"; python3 -m json.tool "$real_json" | tr -d '\n' | sed 's/  */ /g' | fold -w 160 | head -n 12 | sed 's/^/    # /'; echo; }
	[ -f "$tmp/real/summary.json" ] && { echo "    # papi_hl_output_writer's summary of it:"; tr -d '\n' <"$tmp/real/summary.json" | sed 's/  */ /g' | fold -w 160 | sed 's/^/    # /'; echo; }
fi

# likwid_example: LIKWID's own example, unchanged, 4 OpenMP threads, two groups.
if [ $have_likwid = yes ]; then
	run likwid_example sh -c "cd $tmp && $CC -fopenmp -DLIKWID_PERFMON -o $bin/C-markerAPI $example $LINK -lpmu-likwid &&
		OMP_NUM_THREADS=4 PMU_EVENTS='task-clock|page-faults,context-switches' PMU_REPORT=likwid-%p.json $bin/C-markerAPI >example.out 2>example.err;
		rc=\$?; cat example.err; [ \$rc -eq 0 ] && python3 -c '
import glob, json, re, sys
out = open(\"example.out\").read()
counts = [int(c) for c in re.findall(r\"called (\\d+) times\", out)]
want = [g // 2 + 1 for g in range(10) for _ in range(4)]
print(\"counts\", counts)
assert counts == want, \"LIKWID_MARKER_GET counts %s, not %s\" % (counts, want)
rep = json.load(open(glob.glob(\"likwid-*.json\")[0]))
regs = {r[\"name\"]: r for r in rep[\"regions\"]}
for g in (1, 2):
    r = regs[\"example [group %d]\" % g]
    th = [t[\"calls\"] for t in r[\"threads\"]]
    print(r[\"name\"], \"calls per thread\", th)
    assert th == [5, 5, 5, 5], th
'"
	grep -E '^(counts|example )' "$T_OUT" | sed 's/^/    # /'
else
	sk likwid_example "$nolikwid"
fi

# likwid_groups: SWITCH alternates the groups in GET, GET counts, RESET, a bad STOP.
if [ $have_likwid = yes ]; then
	run likwid_groups sh -c "$CC $CFLAGS_T -DLIKWID_PERFMON -o $bin/likwid_groups test/compat/likwid_groups.c $LINK -lpmu-likwid &&
		PMU_EVENTS='page-faults|task-clock,page-faults' PMU_REPORT=$tmp/groups.txt $bin/likwid_groups && cat $tmp/groups.txt &&
		grep -q '^work \\[group 1\\] *total *4 ' $tmp/groups.txt && grep -q '^work \\[group 2\\] *total *3 ' $tmp/groups.txt"
else
	sk likwid_groups "$nolikwid"
fi

# likwid_energy: LIKWID's ENERGY and MEM groups are libpmu's metric groups over RAPL and the uncore
# PMUs: counted where the machine has them, else left out naming the events they need.
if [ $have_likwid = yes ]; then
	run likwid_energy sh -c "cd $tmp && OMP_NUM_THREADS=2 PMU_EVENTS='ENERGY|MEM|page-faults' PMU_REPORT=energy.txt \
		$bin/C-markerAPI >energy.out 2>energy.err; rc=\$?; cat energy.err energy.txt; [ \$rc -eq 0 ] &&
		if [ -d /sys/bus/event_source/devices/power ]; then grep -q 'energy-pkg' energy.txt;
		else grep -q '^ENERGY <not supported>: .*energy-pkg' energy.txt; fi &&
		if ls -d /sys/bus/event_source/devices/uncore_imc* >/dev/null 2>&1; then grep -q 'cas_count_read' energy.txt;
		else grep -q '^MEM <not supported>: .*cas_count_read' energy.txt; fi && grep -q 'page-faults' energy.txt"
else
	sk likwid_energy "$nolikwid"
fi

# likwid_skip: a group that cannot open (a software config no kernel has) is left out with a
# message, in zero-code mode and in the marker API alike; the other groups count as before.
if [ $have_likwid = yes ]; then
	run likwid_skip sh -c "PMU_EVENTS='software/config=0x7777/|page-faults|task-clock,page-faults' PMU_REPORT=$tmp/skip.txt \
		$bin/likwid_groups 2>$tmp/skip.err; rc=\$?; cat $tmp/skip.err $tmp/skip.txt; [ \$rc -eq 0 ] &&
		grep -q 'group 1 (software/config=0x7777/) is not counted' $tmp/skip.err &&
		grep -q '^software/config=0x7777/ <not supported>' $tmp/skip.txt && grep -q '^work \\[group 1\\] *total *4 ' $tmp/skip.txt"
else
	sk likwid_skip "$nolikwid"
fi

# likwid_nan: a group part of which does not open keeps its places, NaN where not counted; refusals of
# LIKWID's groups name each missing PMU.
if [ $have_likwid = yes ]; then
	bad=software/config=0x7777/
	run likwid_nan sh -c "$CC $CFLAGS_T -DLIKWID_PERFMON -o $bin/likwid_nan test/compat/likwid_nan.c $LINK -lpmu-likwid -lm &&
		PMU_EVENTS='page-faults,$bad' PMU_REPORT=/dev/null $bin/likwid_nan pf nan 2>$tmp/nan.err && cat $tmp/nan.err &&
		grep -q 'group 1 (page-faults,$bad): $bad not counted.*NaN in its place' $tmp/nan.err &&
		PMU_EVENTS='$bad,page-faults' PMU_REPORT=/dev/null $bin/likwid_nan nan pf &&
		PMU_EVENTS='task-clock,$bad,page-faults' PMU_REPORT=/dev/null $bin/likwid_nan pos nan pf &&
		if [ ! -d /sys/bus/event_source/devices/power ] && ! ls -d /sys/bus/event_source/devices/uncore_imc* >/dev/null 2>&1; then
			PMU_EVENTS='ENERGY|MEM' PMU_REPORT=/dev/null $bin/likwid_nan 2>$tmp/em.err; cat $tmp/em.err;
			grep -q 'ENERGY: .*power PMU.*; MEM: .*uncore_imc PMUs' $tmp/em.err; fi"
else
	sk likwid_nan "$nolikwid"
fi

# likwid_fortran: LIKWID's Fortran names and module (use likwid), built from compat/dropins/likwid.f90.
if ! command -v gfortran >/dev/null; then
	sk likwid_fortran "gfortran is not installed"
else
	run likwid_fortran sh -c "cd $tmp && gfortran -I$PWD/$O/compat -o $bin/likwid_fortran $PWD/test/compat/likwid_fortran.f90 $LINK -lpmu-likwid &&
		PMU_EVENTS=task-clock,page-faults PMU_REPORT=$tmp/fortran.txt $bin/likwid_fortran >fortran.out && cat fortran.out $tmp/fortran.txt &&
		grep -qx 'events 2 calls 3' fortran.out && grep -qx 'after reset calls 0' fortran.out && grep -q '^fortran region *total *3 ' $tmp/fortran.txt"
fi

# install: make install puts the drop-ins beside the library; programs built with pkg-config; uninstall removes it all.
if [ $have_papi = yes ] && [ $have_likwid = yes ] && command -v pkg-config >/dev/null; then
	pre=$tmp/prefix
	run install sh -c "make -s --no-print-directory O=$O PREFIX=$pre install >/dev/null &&
		ls $pre/lib/libpmu-papi.so.0 $pre/lib/libpmu-likwid.so $pre/lib/pkgconfig/libpmu-papi.pc $pre/share/man/man7/libpmu-likwid.7 &&
		export PKG_CONFIG_PATH=$pre/lib/pkgconfig LD_LIBRARY_PATH=$pre/lib &&
		$CC -o $bin/prog_pc $bin/papi_prog.o \$(pkg-config --libs libpmu-papi) -pthread &&
		$CC -fopenmp -DLIKWID_PERFMON -o $bin/lk_pc test/compat/likwid_groups.c \$(pkg-config --libs libpmu-likwid) &&
		ldd $bin/prog_pc | grep -q '$pre/lib/libpmu-papi.so.0' && mkdir -p $tmp/pc && cd $tmp/pc && PAPI_EVENTS=$EVENTS $bin/prog_pc $PAGES &&
		PMU_EVENTS='page-faults|task-clock,page-faults' PMU_REPORT=/dev/null $bin/lk_pc && cd $PWD &&
		make -s --no-print-directory O=$O PREFIX=$pre uninstall >/dev/null && ! find $pre -type f | grep . &&
		! find $pre -name 'libpmu*' | grep ."
else
	sk install "needs libpapi-dev, likwid and pkg-config"
fi

# abi: each drop-in against its baseline abi/libpmu-NAME.so.0.abi (abidw as for libpmu), and
# debian/libpmu-NAME0.symbols listing exactly what the library exports.
if ! command -v abidiff >/dev/null || ! command -v abidw >/dev/null; then
	sk abi "abigail-tools is not installed (abidw, abidiff)"
else
	run abi sh -c 'for l in papi likwid; do
		so=$0/libpmu-$l.so.$(sed -n "s/^#define PMU_VERSION_MAJOR //p" include/pmu.h)
		so=$(readlink -f $so) && abidw --no-corpus-path --no-comp-dir-path --drop-undefined-syms $so >$1/$l.abi || exit 1
		abidiff abi/libpmu-$l.so.0.abi $1/$l.abi; rc=$?
		[ $((rc & 11)) -eq 0 ] || { echo "libpmu-$l: abidiff $rc (bit 8: an incompatible change)"; exit 1; }
		nm -D --defined-only $so | awk "{print \$3}" | sed "s/@@*/@/; /@/!s/.*/&@&/" | sort >$1/$l.syms
		sed -n "s/^ \([^ ]*\) .*/\1/p" debian/libpmu-${l}0.symbols | sort | diff -u - $1/$l.syms || exit 1
		echo "libpmu-$l: the ABI of the baseline, $(wc -l <$1/$l.syms) symbols as debian/libpmu-${l}0.symbols lists them"
	done' "$O" "$tmp"
fi

# omp_*: libpmu-omp (OMPT) on LLVM's libomp: clang's programs, and gcc's run on libomp.
libomp=$(ls /usr/lib/llvm-*/lib/libomp.so.5 2>/dev/null | tail -n 1)
omp_env="OMP_NUM_THREADS=3 OMP_TOOL_LIBRARIES=$PWD/$O/libpmu-omp.so PMU_EVENTS=task-clock"
if ! command -v clang >/dev/null || [ -z "$libomp" ]; then
	sk omp_clang "clang or LLVM's libomp is not installed (Debian: clang libomp-dev)"
else
	run omp_clang sh -c "clang -g -O1 -fopenmp -o $bin/omp_clang test/compat/omp_regions.c &&
		env $omp_env PMU_REPORT=$tmp/omp_clang.json $bin/omp_clang && cat $tmp/omp_clang.json &&
		python3 test/compat/omp_check.py $tmp/omp_clang.json 3 $(nm -D $O/libpmu-omp.so | grep -q dwfl_ && echo lines || echo names)"
	grep -E '^(regions|main)' "$T_OUT" | sed 's/^/    # /'
fi
if [ -z "$libomp" ]; then
	sk omp_gcc "LLVM's libomp is not installed (Debian: libomp-dev)"
else
	run omp_gcc sh -c "$CC -g -O1 -fopenmp -o $bin/omp_gcc test/compat/omp_regions.c &&
		env $omp_env LD_PRELOAD=$libomp PMU_REPORT=$tmp/omp_gcc.json $bin/omp_gcc &&
		python3 test/compat/omp_check.py $tmp/omp_gcc.json 3 $(nm -D $O/libpmu-omp.so | grep -q dwfl_ && echo lines || echo names) noloop"
fi
# omp_names: kernels reached by a tail call from one place, C++ names, a name longer than a region's.
if ! command -v clang++ >/dev/null || [ -z "$libomp" ]; then
	sk omp_names "clang++ or LLVM's libomp is not installed (Debian: clang libomp-dev)"
elif ! nm -D $O/libpmu-omp.so | grep -q dwfl_; then
	sk omp_names "libpmu-omp was built without elfutils' libdw (Debian: libdw-dev): no file:line in names"
else
	run omp_names sh -c "clang++ -g -O2 -fopenmp -o $bin/omp_names test/compat/omp_names.cpp &&
		env $omp_env PMU_REPORT=$tmp/omp_names.json $bin/omp_names && python3 test/compat/omp_names.py $tmp/omp_names.json 3 &&
		g++ -g -O2 -fopenmp -o $bin/omp_names_gcc test/compat/omp_names.cpp &&
		env $omp_env LD_PRELOAD=$libomp PMU_REPORT=$tmp/omp_names_gcc.json $bin/omp_names_gcc &&
		python3 test/compat/omp_names.py $tmp/omp_names_gcc.json 3 tail-unnamed"
	grep -E '^regions' "$T_OUT" | sed 's/^/    # /'
fi
# omp_report: without PMU_EVENTS, the report to PMU_REPORT=stderr goes to stderr, no file named so.
if command -v clang >/dev/null && [ -n "$libomp" ]; then
	run omp_report sh -c "mkdir -p $tmp/omp_rep && cd $tmp/omp_rep && OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES=$PWD/$O/libpmu-omp.so \
		PMU_REPORT=stderr $bin/omp_clang 2>err >/dev/null && grep -q '^libpmu report: ' err && [ ! -e stderr ] &&
		OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES=$PWD/$O/libpmu-omp.so PMU_REPORT=stdout $bin/omp_clang >out &&
		grep -q '^libpmu report: ' out && [ ! -e stdout ]"
else
	sk omp_report "clang or LLVM's libomp is not installed (Debian: clang libomp-dev)"
fi
# omp_bench: ns per empty parallel region on 2 threads, without and with libpmu-omp (printed, never compared).
if command -v clang >/dev/null && [ -n "$libomp" ]; then
	run omp_bench sh -c "clang -O2 -fopenmp -o $bin/bench_omp bench/omp.c && echo 'without libpmu-omp:' &&
		OMP_NUM_THREADS=2 $bin/bench_omp && echo 'with libpmu-omp (task-clock, the read(2) path):' &&
		OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES=$PWD/$O/libpmu-omp.so PMU_EVENTS=task-clock PMU_REPORT=/dev/null $bin/bench_omp"
	sed 's/^/    # /' "$T_OUT"
else
	sk omp_bench "clang or LLVM's libomp is not installed (Debian: clang libomp-dev)"
fi
# omp_libgomp: preloaded under GCC's libgomp, which has no OMPT: it says so, and the program runs;
# preloaded into a process with no OpenMP runtime (a launcher's helper): silent.
run omp_libgomp sh -c "$CC -fopenmp -o $bin/omp_gomp test/compat/omp_regions.c &&
	LD_PRELOAD=$PWD/$O/libpmu-omp.so PMU_EVENTS=task-clock $bin/omp_gomp 2>$tmp/gomp.err >/dev/null; rc=\$?;
	cat $tmp/gomp.err; [ \$rc -eq 0 ] && grep -q 'libpmu-omp: no OpenMP runtime with a tool interface (OMPT).*libgomp has no OMPT' $tmp/gomp.err &&
	LD_PRELOAD=$PWD/$O/libpmu-omp.so true 2>$tmp/true.err && cat $tmp/true.err && [ ! -s $tmp/true.err ]"

# kokkos_omp: a kernel of Kokkos' OpenMP backend (its hooks around a parallel region, as Kokkos calls them)
# with libpmu-kokkos and libpmu-omp: "fill [for]" counts every thread of the team, 3 calls each.
if ! command -v clang >/dev/null || [ -z "$libomp" ]; then
	sk kokkos_omp "clang or LLVM's libomp is not installed (Debian: clang libomp-dev)"
else
	run kokkos_omp sh -c "clang -O1 -fopenmp -o $bin/kokkos_omp test/compat/kokkos_omp.c $LINK -lpmu-kokkos \
		-Wl,-rpath,$PWD/$O && OMP_NUM_THREADS=3 OMP_TOOL_LIBRARIES=$PWD/$O/libpmu-omp.so PMU_EVENTS=task-clock \
		PMU_REPORT=$tmp/kokkos_omp.json $bin/kokkos_omp && python3 -c '
import json
rep = json.load(open(\"$tmp/kokkos_omp.json\"))
r = {x[\"name\"]: x for x in rep[\"regions\"]}[\"fill [for]\"]
calls = sorted(t[\"calls\"] for t in r[\"threads\"])
print(\"fill [for]: calls per thread\", calls, \"task-clock per thread\", [t[\"counts\"][\"task-clock\"] for t in r[\"threads\"]])
assert calls == [3, 3, 3] and all(t[\"counts\"][\"task-clock\"] > 0 for t in r[\"threads\"]), r
'"
	grep '^fill' "$T_OUT" | sed 's/^/    # /'
fi

# kokkos_kernels: libpmu-kokkos under Debian's Kokkos (KOKKOS_PROFILE_LIBRARY), a real program's kernels.
if [ ! -f /usr/include/trilinos/Kokkos_Core.hpp ] || ! command -v c++ >/dev/null; then
	sk kokkos_kernels "Kokkos is not installed (Debian: libtrilinos-kokkos-dev)"
else
	run kokkos_kernels sh -c "c++ -std=c++17 -O2 -I/usr/include/trilinos -o $bin/kokkos test/compat/kokkos_kernels.cpp \
		-ltrilinos_kokkoscore -ldl && KOKKOS_PROFILE_LIBRARY=$PWD/$O/libpmu-kokkos.so PMU_EVENTS=task-clock,page-faults \
		PMU_REPORT=$tmp/kokkos.json $bin/kokkos && python3 -c '
import json
rep = json.load(open(\"$tmp/kokkos.json\"))
regs = {r[\"name\"]: r for r in rep[\"regions\"]}
print(\"regions:\", \", \".join(sorted(regs)))
for name, calls in ((\"fill [for]\", 3), (\"sum [reduce]\", 1), (\"prefix [scan]\", 1), (\"setup [region]\", 1),
                    (\"solve [section]\", 1), (\"Kokkos::View::initialization [a] [for]\", 1)):
    assert regs[name][\"calls\"] == calls and regs[name][\"counts\"][\"task-clock\"] > 0, (name, regs.get(name))
long = \"x\" * 118 + \"... [for]\"
assert long in regs and len(long) == 127, sorted(regs)
'"
	grep '^regions' "$T_OUT" | sed 's/^/    # /'
fi

# mpi_*: libpmu-mpi under Open MPI (preloaded, mpirun -x): one report per job, merged up a tree at
# MPI_Finalize with the figures pmu report merge gives the ranks' own reports; Fortran's mpi_finalize.
mpirun_=$(command -v mpirun || true)
if [ ! -f "$O/libpmu-mpi.so" ] || [ -z "$mpirun_" ]; then
	for t in mpi_c_1 mpi_c_2 mpi_c_7 mpi_c_16 mpi_fortran_mpifh mpi_fortran_use_mpi; do
		sk $t "Open MPI is not installed (Debian: libopenmpi-dev openmpi-bin)"; done
else
	mpirun_="mpirun --oversubscribe $([ "$(id -u)" -eq 0 ] && echo --allow-run-as-root) -x PMU_EVENTS -x PMU_REPORT -x LD_PRELOAD=$PWD/$O/libpmu-mpi.so"
	mpicc -std=gnu11 -Wall -Wextra -Werror -Iinclude -o $bin/mpi_regions test/compat/mpi_regions.c -L$O -lpmu -Wl,-rpath,$PWD/$O
	for np in 1 2 7 16; do
		run mpi_c_$np sh -c "rm -rf $tmp/mpi && mkdir $tmp/mpi && cd $tmp/mpi &&
			PMU_EVENTS=task-clock,page-faults PMU_REPORT='job-%r.json' $mpirun_ -np $np $bin/mpi_regions 'rank-%r.json' &&
			[ \"\$(ls job-*.json)\" = job-all.json ] &&
			t0=\$(date +%s%N) && $PWD/$O/pmu report merge --format json -o ref.json \$(seq -f 'rank-%.0f.json' 0 $((np - 1))) &&
			echo \"beside: $np files written, then pmu report merge: \$(( (\$(date +%s%N) - t0) / 1000000 )) ms\" &&
			python3 $PWD/test/compat/mpi_check.py job-all.json $np ref.json"
		grep -E '^libpmu-mpi|^beside|^the same' "$T_OUT" | sed 's/^/    # /'
	done
	# Every format from each of the three producers of a report: a process (PMU_REPORT), libpmu-mpi's
	# reduction in the job, and pmu report merge of the ranks' own reports, each file read by a reader
	# of its format (test/compat/formats_check.py), with histograms: the distributions in each. A name
	# asking for no format writes nothing.
	for f in table:txt csv:csv json:json html:html prometheus:prom openmetrics:om folded:folded; do
		run formats_${f%%:*} sh -c "rm -rf $tmp/fmt && mkdir $tmp/fmt && cd $tmp/fmt &&
			export PMU_HISTOGRAMS=1 &&
			PMU_EVENTS=task-clock PMU_REPORT=proc.${f#*:} $PWD/$O/examples/zero_code >/dev/null &&
			PMU_EVENTS=task-clock PMU_REPORT='job-%r.${f#*:}' $mpirun_ -x PMU_HISTOGRAMS -np 2 $bin/mpi_regions 'rank-%r.json' &&
			$PWD/$O/pmu report merge -o merged.${f#*:} rank-0.json rank-1.json &&
			for p in proc job-all merged; do python3 $PWD/test/compat/formats_check.py ${f%%:*} \$p.${f#*:} \
				\$([ \$p = proc ] && echo alloc || echo work) $([ ${f%%:*} = folded ] || echo dist) || exit 1; done"
	done
	run formats_refused sh -c "rm -rf $tmp/fmt && mkdir $tmp/fmt && cd $tmp/fmt &&
		PMU_EVENTS=task-clock PMU_REPORT='job-%r.xml' $mpirun_ -np 2 $bin/mpi_regions 2> err;
		cat err; grep -q 'job-all.xml: the extension .xml names no report format' err &&
		[ \"\$(ls)\" = err ]"
	for v in mpifh use_mpi; do
		if ! command -v mpif90 >/dev/null; then sk mpi_fortran_$v "mpif90 is not installed (Debian: gfortran, libopenmpi-dev)"; continue; fi
		run mpi_fortran_$v sh -c "rm -rf $tmp/mpi && mkdir $tmp/mpi && cd $tmp/mpi &&
			mpif90 -cpp $([ $v = use_mpi ] && echo -DUSE_MPI) -o $bin/mpi_f_$v $PWD/test/compat/mpi_fortran.f90 &&
			PMU_EVENTS=task-clock PMU_REPORT='f-%r.json' $mpirun_ -np 4 $bin/mpi_f_$v && [ \"\$(ls *.json)\" = f-all.json ] &&
			python3 -c 'import json; r = json.load(open(\"f-all.json\")); assert len(r[\"processes\"]) == 4 and r[\"regions\"][0][\"processes\"] == 4, r'"
	done
fi

# The cost of a region pair, printed, never compared.
if make -s --no-print-directory O="$O" "$O/bench/compat" >/dev/null 2>&1; then
	run bench_compat env ${REAL_ENV:-} "$O/bench/compat" 20000
	sed 's/^/    # /' "$T_OUT"
else
	ko bench_compat
fi

closing
[ $fail -eq 0 ]
