/* SPDX-License-Identifier: MIT */
/*
 * Event encodings against the fixture sysfs trees in test/fixtures, with
 * values worked out by hand from the format files.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cpu_pmu.h"
#include "events/event.h"
#include "test.h"

/* test/fixtures from the repo root, or next to the build directory. */
static const char *fixtures(void)
{
	static char dir[PATH_MAX + 32];
	char exe[PATH_MAX];
	ssize_t n;

	if (access("test/fixtures/intel/cpu/type", R_OK) == 0)
		return "test/fixtures";
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 4; up++) {
			char *s = strrchr(exe, '/');

			if (!s)
				break;
			*s = '\0';
			snprintf(dir, sizeof(dir), "%s/test/fixtures", exe);
			if (access(dir, R_OK) == 0)
				return dir;
		}
	}
	return NULL;
}

struct want {
	const char *pmu;
	uint32_t type;
	uint64_t config, config1, config2;
	uint64_t auto_long;
};

#define U 0, 1, 1	/* default: user only */
#define NOX 0, 0, 0	/* no exclusion */

static const struct {
	const char *fixture, *event;
	int xu, xk, xh;
	unsigned n;
	struct want w[2];
} cases[] = {
	/* Intel: formats event=config:0-7 umask=config:8-15 edge=18 pc=19 any=21 inv=23 cmask=24-31
	 * in_tx=32 in_tx_cp=33 ldlat=config1:0-15 offcore_rsp=config1:0-63 frontend=config1:0-23 */
	{ "intel", "cycles", U, 1, { { "cpu", 0, 0 } } },
	{ "intel", "instructions:k", 1, 0, 1, 1, { { "cpu", 0, 1 } } },
	{ "intel", "cpu/event=0x3c,umask=0x1/", U, 1, { { "cpu", 4, 0x13c } } },
	/* an uncore family by its name: every instance, as perf (their counts summed) */
	{ "intel", "uncore_imc/cas_count_read/", NOX, 2, { { "uncore_imc_0", 14, 0x304 }, { "uncore_imc_1", 15, 0x304 } } },
	{ "intel", "uncore_imc/event=0x1/", NOX, 2, { { "uncore_imc_0", 14, 0x1 }, { "uncore_imc_1", 15, 0x1 } } },
	{ "intel", "cpu/event=0x3c,umask=0x1/uk", 0, 0, 1, 1, { { "cpu", 4, 0x13c } } },
	{ "intel", "cpu/event=0x3c,umask=0x1/:h", 1, 1, 0, 1, { { "cpu", 4, 0x13c } } },
	{ "intel", "cpu/cmask=4,inv,edge,event=0xa3/", U, 1, { { "cpu", 4, 0x48400a3 } } },
	{ "intel", "cpu/event=0x3c,any/", U, 1, { { "cpu", 4, 0x20003c } } },
	{ "intel", "cpu/in_tx,in_tx_cp,event=0x3c/", U, 1, { { "cpu", 4, 0x30000003c } } },
	{ "intel", "cpu/mem-loads/", U, 1, { { "cpu", 4, 0x1cd, 3 } } },
	{ "intel", "cpu/mem-loads,ldlat=30/", U, 1, { { "cpu", 4, 0x1cd, 30 } } },
	{ "intel", "cpu/ldlat=0x40,mem-loads/", U, 1, { { "cpu", 4, 0x1cd, 0x40 } } },
	{ "intel", "mem-loads", U, 1, { { "cpu", 4, 0x1cd, 3 } } },
	{ "intel", "MEM-LOADS:u", U, 1, { { "cpu", 4, 0x1cd, 3 } } },
	{ "intel", "cpu/event=0xb7,umask=0x1,offcore_rsp=0x3f803c0001/", U, 1,
	  { { "cpu", 4, 0x1b7, 0x3f803c0001ull } } },
	{ "intel", "cpu/event=0xc6,umask=0x1,frontend=0x400406/", U, 1, { { "cpu", 4, 0x1c6, 0x400406 } } },
	{ "intel", "cpu/frontend=0xffffff/", U, 1, { { "cpu", 4, 0, 0xffffff } } },
	{ "intel", "cpu/config=0x1234,config1=5,config2=0x77/", U, 1, { { "cpu", 4, 0x1234, 5, 0x77 } } },
	{ "intel", "cpu/config=0xff00,event=0x12/", U, 1, { { "cpu", 4, 0xff12 } } },
	{ "intel", "cpu/cpu-cycles/", U, 1, { { "cpu", 4, 0x3c } } },
	{ "intel", "cpu/cycles/", U, 1, { { "cpu", 0, 0 } } },
	{ "intel", "cpu/LLC-load-misses/", U, 1, { { "cpu", 3, 0x10002 } } },
	{ "intel", "cpu/topdown-recovery-bubbles/", U, 1, { { "cpu", 4, 0x100010d } } },
	{ "intel", "cycles-ct", U, 1, { { "cpu", 4, 0x30000003c } } },
	{ "intel", "cpu/event=60,name=my-cycles/", U, 1, { { "cpu", 4, 60 } } },
	{ "intel", "cpu//", U, 1, { { "cpu", 4, 0 } } },
	{ "intel", " cpu / event = 1 , umask = 2 / ", U, 1, { { "cpu", 4, 0x201 } } },
	{ "intel", "r1a8", U, 1, { { "cpu", 4, 0x1a8 } } },
	{ "intel", "L1-dcache-load-misses", U, 1, { { "cpu", 3, 0x10000 } } },
	{ "intel", "l1-d-miss-read", U, 1, { { "cpu", 3, 0x10000 } } },
	{ "intel", "msr/tsc/", NOX, 1, { { "msr", 9, 0 } } },
	{ "intel", "tsc", NOX, 1, { { "msr", 9, 0 } } },
	{ "intel", "msr/aperf/u", 0, 1, 1, 1, { { "msr", 9, 1 } } },
	{ "intel", "power/energy-pkg/", NOX, 1, { { "power", 16, 2 } } },
	{ "intel", "cas_count_read", NOX, 2, { { "uncore_imc_0", 14, 0x304 }, { "uncore_imc_1", 15, 0x304 } } },
	{ "intel", "uncore_imc_1/event=0x4,umask=3/", NOX, 1, { { "uncore_imc_1", 15, 0x304 } } },
	{ "intel", "software/config=1/", U, 1, { { "software", 1, 1 } } },
	{ "intel", "tracepoint/config=316/", NOX, 1, { { "tracepoint", 2, 316 } } },
	{ "intel", "uprobe/retprobe,ref_ctr_offset=0x10/", NOX, 1, { { "uprobe", 7, 0x1000000001ull } } },
	{ "intel", "task-clock", U, 1, { { "software", 1, 1 } } },

	/* Alder Lake: cpu_core type 4, cpu_atom type 10: generic events on both, extended type in config */
	{ "intel_hybrid", "cycles", U, 2, { { "cpu_core", 0, 0x400000000ull }, { "cpu_atom", 0, 0xa00000000ull } } },
	{ "intel_hybrid", "branch-misses:k", 1, 0, 1, 2,
	  { { "cpu_core", 0, 0x400000005ull }, { "cpu_atom", 0, 0xa00000005ull } } },
	{ "intel_hybrid", "LLC-load-misses", U, 2,
	  { { "cpu_core", 3, 0x400010002ull }, { "cpu_atom", 3, 0xa00010002ull } } },
	{ "intel_hybrid", "cpu_atom/cycles/", U, 1, { { "cpu_atom", 0, 0xa00000000ull } } },
	{ "intel_hybrid", "cpu_core/L1-dcache-loads/", U, 1, { { "cpu_core", 3, 0x400000000ull } } },
	{ "intel_hybrid", "cpu_core/event=0xc0/", U, 1, { { "cpu_core", 4, 0xc0 } } },
	{ "intel_hybrid", "cpu_atom/event=0xc0,umask=0/", U, 1, { { "cpu_atom", 10, 0xc0 } } },
	{ "intel_hybrid", "topdown-retiring", U, 2, { { "cpu_core", 4, 0x8000 }, { "cpu_atom", 10, 0xc2 } } },
	{ "intel_hybrid", "mem-loads", U, 2, { { "cpu_core", 4, 0x1cd, 3 }, { "cpu_atom", 10, 0x5d0, 3 } } },
	{ "intel_hybrid", "slots", U, 1, { { "cpu_core", 4, 0x400 } } },
	{ "intel_hybrid", "r3c", U, 1, { { "cpu_core", 4, 0x3c } } },
	{ "intel_hybrid", "task-clock", U, 1, { { "software", 1, 1 } } },

	/* AMD Zen: event=config:0-7,32-35 (12 bits, low 8 first), amd_df event=config:0-7,32-35,59-60 */
	{ "amd_zen", "cpu/event=0xabc/", U, 1, { { "cpu", 4, 0xa000000bcull } } },
	{ "amd_zen", "cpu/event=0xfff,umask=0xff/", U, 1, { { "cpu", 4, 0xf0000ffffull } } },
	{ "amd_zen", "cpu/event=0x0c0/", U, 1, { { "cpu", 4, 0xc0 } } },
	{ "amd_zen", "amd_df/event=0x3fff,umask=1/", NOX, 1,
	  { { "amd_df", 11, 0xffull | 0xfull << 32 | 3ull << 59 | 0x100 } } },
	{ "amd_zen", "amd_df/event=0x1007/", NOX, 1, { { "amd_df", 11, 0x07ull | 1ull << 59 } } },
	{ "amd_zen", "amd_l3/event=1,threadmask=3,coreid=7,enallslices/", NOX, 1,
	  { { "amd_l3", 12, 1 | 3ull << 56 | 7ull << 42 | 1ull << 46 } } },
	{ "amd_zen", "instructions", U, 1, { { "cpu", 0, 1 } } },

	/* arm64 PMUv3: rdpmc=config1:1 and long=config1:0 set unless the event says otherwise */
	{ "arm64", "cycles", U, 1, { { "armv8_pmuv3_0", 0, 0, 3, 0, 1 } } },
	{ "arm64", "instructions:uk", 0, 0, 1, 1, { { "armv8_pmuv3_0", 0, 1, 3, 0, 1 } } },
	{ "arm64", "L1-dcache-load-misses", U, 1, { { "armv8_pmuv3_0", 3, 0x10000, 3, 0, 1 } } },
	{ "arm64", "r11", U, 1, { { "armv8_pmuv3_0", 4, 0x11, 3, 0, 1 } } },
	{ "arm64", "armv8_pmuv3_0/event=0x11/", U, 1, { { "armv8_pmuv3_0", 8, 0x11, 3, 0, 1 } } },
	{ "arm64", "armv8_pmuv3_0/event=0x11,long=0/", U, 1, { { "armv8_pmuv3_0", 8, 0x11, 2, 0, 0 } } },
	{ "arm64", "armv8_pmuv3_0/event=0x11,long/", U, 1, { { "armv8_pmuv3_0", 8, 0x11, 3, 0, 0 } } },
	{ "arm64", "armv8_pmuv3_0/cpu_cycles,rdpmc=0/", U, 1, { { "armv8_pmuv3_0", 8, 0x11, 1, 0, 1 } } },
	{ "arm64", "armv8_pmuv3_0/event=0x8,config1=0/", U, 1, { { "armv8_pmuv3_0", 8, 0x8, 0, 0, 0 } } },
	{ "arm64", "armv8_pmuv3_0/event=0x8,threshold=0xfff,threshold_compare=2/", U, 1,
	  { { "armv8_pmuv3_0", 8, 0x8, 3 | 0xfffull << 5 | 2 << 2, 0, 1 } } },
	{ "arm64", "inst_retired:u", U, 1, { { "armv8_pmuv3_0", 8, 0x8, 3, 0, 1 } } },
	{ "arm64", "stall_frontend", U, 1, { { "armv8_pmuv3_0", 8, 0x23, 3, 0, 1 } } },
	{ "arm64", "armv8_pmuv3_0/cycles/", U, 1, { { "armv8_pmuv3_0", 0, 0, 3, 0, 1 } } },
	{ "arm64", "page-faults", U, 1, { { "software", 1, 2 } } },

	/* arm64 big.LITTLE: a53 type 8, a72 type 9 */
	{ "arm64_big_little", "cycles", U, 2,
	  { { "armv8_cortex_a53", 0, 0x800000000ull, 3, 0, 1 }, { "armv8_cortex_a72", 0, 0x900000000ull, 3, 0, 1 } } },
	{ "arm64_big_little", "cpu_cycles", U, 2,
	  { { "armv8_cortex_a53", 8, 0x11, 3, 0, 1 }, { "armv8_cortex_a72", 9, 0x11, 3, 0, 1 } } },
	{ "arm64_big_little", "inst_spec", U, 1, { { "armv8_cortex_a72", 9, 0x1b, 3, 0, 1 } } },
	{ "arm64_big_little", "armv8_cortex_a72/cycles,long=0/", U, 1,
	  { { "armv8_cortex_a72", 0, 0x900000000ull, 2, 0, 0 } } },
	{ "arm64_big_little", "r8", U, 1, { { "armv8_cortex_a53", 4, 0x8, 3, 0, 1 } } },

	/* RISC-V SBI: event=config:0-47, firmware=config:63 */
	{ "riscv", "cpu/event=0xffffffffffff/", U, 1, { { "cpu", 4, 0xffffffffffffull } } },
	{ "riscv", "cpu/firmware,event=5/", U, 1, { { "cpu", 4, 1ull << 63 | 5 } } },
	{ "riscv", "cycles", U, 1, { { "cpu", 0, 0 } } },
	{ "riscv", "r10009", U, 1, { { "cpu", 4, 0x10009 } } },

	/* POWER hv_gpci: '?' supplied by the user */
	{ "powerpc", "hv_gpci/dtbp_ptitc,starting_index=3/", NOX, 1,
	  { { "hv_gpci", 12, 0x10 | 3ull << 32, 8ull << 16 | 8ull << 24 | 0x48ull << 32 } } },
	{ "powerpc", "cycles", U, 1, { { "cpu", 0, 0 } } },

	/* well-formed parts of a broken tree still work */
	{ "broken", "cpu/event=1,umask=2/", U, 1, { { "cpu", 4, 0x201 } } },
	{ "broken", "cpu/needs,umask=3/", U, 1, { { "cpu", 4, 0x305 } } },
};

static const struct {
	const char *fixture, *event;
	int err;
	const char *msg;	/* in the message, besides the event */
} errors[] = {
	{ "intel", "cpu/umask=0x100/", -EINVAL, "8 bits" },
	{ "intel", "uncore_im/cas_count_read/", -ENOENT, "unknown PMU 'uncore_im'" },
	{ "intel", "uncore_imc/nope/", -EINVAL, "uncore_imc_0" },
	{ "intel", "cpu/frontend=0x1000000/", -EINVAL, "24 bits, config1:0-23" },
	{ "intel", "cpu/event=1,event=2/", -EINVAL, "duplicate term 'event'" },
	{ "intel", "cpu/config1=1,config1=1/", -EINVAL, "duplicate term 'config1'" },
	{ "intel", "cpu/foo=1/", -EINVAL, "unknown term 'foo' for PMU cpu (its terms: any, cmask, edge, event" },
	{ "intel", "cpu/nosuchevent/", -EINVAL, "unknown term 'nosuchevent'" },
	{ "intel", "cpu/event=?/", -EINVAL, "needs a value" },
	{ "intel", "cpu/event=zz/", -EINVAL, "bad value 'zz'" },
	{ "intel", "cpu/event=0x10000000000000000/", -EINVAL, "out of range" },
	{ "intel", "cpu/config/", -EINVAL, "needs a value" },
	{ "intel", "cpu/mem-loads,cpu-cycles/", -EINVAL, "two event names" },
	{ "intel", "cpu/cycles,config=5/", -EINVAL, "term 'config' sets config, which generic event 'cycles' fixes" },
	{ "intel", "cpu/event=1,cycles/", -EINVAL, "term 'event' sets config, which generic event 'cycles' fixes" },
	{ "intel", "cpu/L1-dcache-loads,umask=1/", -EINVAL, "term 'umask' sets config" },
	{ "intel_hybrid", "cpu_core/cycles,event=0x3c/", -EINVAL, "generic event 'cycles'" },
	{ "intel", "cpu/event=1,,umask=1/", -EINVAL, "malformed term list" },
	{ "intel", "cpu/event=1", -EINVAL, "missing closing '/'" },
	{ "intel", "cpu/event=1/q", -EINVAL, "bad modifier 'q'" },
	{ "intel", "/event=1/", -EINVAL, "missing PMU name" },
	{ "intel", "cpux/event=1/", -ENOENT, "unknown PMU 'cpux'" },
	{ "intel", "cpux/event=1/", -ENOENT, "did you mean cpu" },
	{ "intel", "../intel/cpu/event=1/", -EINVAL, "bad modifier" },
	{ "intel", "cyclez", -ENOENT, "did you mean cycles" },
	{ "intel", "mem-load", -ENOENT, "did you mean mem-loads" },
	{ "intel", "L1-icache-stores", -EINVAL, "operation this cache does not have" },
	{ "intel", "cycles:q", -EINVAL, "bad modifier 'q'" },
	{ "intel", "mem-loads:", -EINVAL, "empty modifier" },
	{ "intel_hybrid", "cpu_atom/slots/", -EINVAL, "unknown term 'slots' for PMU cpu_atom" },
	{ "intel_hybrid", "cpu_atom/frontend=1/", -EINVAL, "unknown term 'frontend'" },
	{ "amd_zen", "cpu/event=0x1000/", -EINVAL, "12 bits, config:0-7,32-35" },
	{ "amd_zen", "amd_df/event=0x4000/", -EINVAL, "14 bits, config:0-7,32-35,59-60" },
	{ "arm64", "armv8_pmuv3_0/event=0x10000/", -EINVAL, "16 bits" },
	{ "arm64", "msr/tsc/", -ENOENT, "unknown PMU 'msr'" },
	{ "arm64", "armv8_pmuv3_0/long=2/", -EINVAL, "1 bit, config1:0" },
	{ "riscv", "cpu/event=0x1000000000000/", -EINVAL, "48 bits" },
	{ "powerpc", "hv_gpci/dtbp_ptitc/", -EINVAL, "needs a value for 'starting_index'" },
	{ "powerpc", "dtbp_ptitc", -EINVAL, "needs a value for 'starting_index'" },
	{ "broken", "cpu/rev=1/", -EINVAL, "broken/cpu/format/rev is malformed: 'config:7-0'" },
	{ "broken", "cpu/word=1/", -EINVAL, "format/word is malformed" },
	{ "broken", "cpu/overlap=1/", -EINVAL, "format/overlap is malformed" },
	{ "broken", "cpu/big=1/", -EINVAL, "format/big is malformed" },
	{ "broken", "cpu/empty=1/", -EINVAL, "format/empty is malformed" },
	{ "broken", "cpu/bad_term/", -EINVAL, "events/bad_term uses 'nosuch'" },
	{ "broken", "cpu/bad_value/", -EINVAL, "events/bad_value is malformed" },
	{ "broken", "cpu/too_wide/", -EINVAL, "wider than term 'umask'" },
	{ "broken", "cpu/needs/", -EINVAL, "needs a value for 'umask'" },
	{ "broken", "cpu/uses_bad/", -EINVAL, "format/rev is malformed" },
	{ "broken", "cpu/trailing/", -EINVAL, "events/trailing is malformed" },
	{ "broken", "cpu/binary/", -EINVAL, "events/binary: malformed" },
	{ "broken", "cpu/huge/", -EINVAL, "events/huge: malformed" },
	{ "broken", "badtype/config=1/", -EINVAL, "badtype/type: malformed PMU type 'abc'" },
	{ "broken", "bigtype/config=1/", -EINVAL, "malformed PMU type" },
	{ "broken", "emptytype/config=1/", -EINVAL, "malformed PMU type" },
	{ "broken", "notype/event=1/", -ENOENT, "unknown PMU 'notype'" },
#if !PMU_HAVE_CONFIG3
	{ "broken", "cpu/ext=1/", -EOPNOTSUPP, "config3" },
	{ "broken", "cpu/config3=1/", -EOPNOTSUPP, "config3" },
#endif
};

static void use(const char *root, const char *fixture)
{
	char dir[PATH_MAX + 64];

	snprintf(dir, sizeof(dir), "%.*s/%s", PATH_MAX - 1, root, fixture);
	setenv("PMU_SYSFS_DEVICES", dir, 1);
}

/* The scale and unit perf stat shows an event in: a sysfs alias's .scale and .unit, msec for the clocks. */
static void check_unit(const char *event, double scale, const char *unit)
{
	struct pmu__event ev;
	double got = 0;
	const char *u;

	if (pmu__event_parse(event, strlen(event), &ev) != 0) {
		CHECK_MSG(0, "%s: %s", event, pmu_errmsg());
		return;
	}
	u = pmu__attr_unit(&ev.a[0], &got);
	CHECK_MSG(got == scale && !strcmp(u, unit), "%s: scale %.17g unit \"%s\", want %.17g \"%s\"", event, got, u,
		  scale, unit);
}

static void test_units(const char *root)
{
	char dir[] = "/tmp/pmu-unit.XXXXXX", sub[PATH_MAX];

	use(root, "intel");
	check_unit("power/energy-pkg/", 2.3283064365386962890625e-10, "Joules");
	check_unit("energy-ram", 2.3283064365386962890625e-10, "Joules");	/* a bare alias */
	check_unit("uncore_imc_0/cas_count_read/", 6.103515625e-5, "MiB");
	check_unit("uncore_imc_0/clockticks/", 1, "");
	check_unit("uncore_imc/cas_count_read/", 6.103515625e-5, "MiB");
	check_unit("power/event=0x02/", 1, "");	/* terms name no alias */
	check_unit("cycles", 1, "");
	check_unit("task-clock", 1e-6, "msec");
	check_unit("cpu-clock:u", 1e-6, "msec");
	/* A unit is shown as it is, so one that is not a plain word is left out; a scale that is no number too. */
	if (!mkdtemp(dir)) {
		CHECK_MSG(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	t_cpu_pmu(dir, "odd", "0\n", "e", "event=0x02\n");	/* page-faults: no unit of its own */
	t_put(dir, "odd/events", "e.unit", "\033[2JJ\n");
	t_put(dir, "odd/events", "e.scale", "lots\n");
	setenv("PMU_SYSFS_DEVICES", dir, 1);
	check_unit("odd/e/", 1, "");
	snprintf(sub, sizeof(sub), "rm -rf '%s'", dir);
	CHECK(system(sub) == 0);
}

int main(void)
{
	const char *root = fixtures();
	struct pmu__event ev;
	struct perf_event_attr a = { .size = sizeof(a) };

	if (!root)
		T_SKIP("test/fixtures not found (run from the source tree)");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *e = cases[i].event;
		int r;

		use(root, cases[i].fixture);
		r = pmu__event_parse(e, strlen(e), &ev);
		CHECK_MSG(r == 0, "%s %s: %d %s", cases[i].fixture, e, r, pmu_errmsg());
		if (r)
			continue;
		CHECK_MSG(ev.n == cases[i].n, "%s %s: %u attrs", cases[i].fixture, e, ev.n);
		for (unsigned k = 0; k < ev.n && k < cases[i].n; k++) {
			const struct want *w = &cases[i].w[k];
			const struct perf_event_attr *at = &ev.a[k].attr;

			CHECK_MSG(!strcmp(ev.a[k].pmu, w->pmu) && at->type == w->type && at->config == w->config &&
				  at->config1 == w->config1 && at->config2 == w->config2 &&
				  ev.a[k].auto_long == w->auto_long,
				  "%s %s [%u]: pmu=%s type=%u config=0x%llx config1=0x%llx config2=0x%llx auto_long=0x%llx"
				  " (want pmu=%s type=%u config=0x%llx config1=0x%llx config2=0x%llx auto_long=0x%llx)",
				  cases[i].fixture, e, k, ev.a[k].pmu, at->type, (unsigned long long)at->config,
				  (unsigned long long)at->config1, (unsigned long long)at->config2,
				  (unsigned long long)ev.a[k].auto_long, w->pmu, w->type,
				  (unsigned long long)w->config, (unsigned long long)w->config1,
				  (unsigned long long)w->config2, (unsigned long long)w->auto_long);
			CHECK_MSG(at->exclude_user == cases[i].xu && at->exclude_kernel == cases[i].xk &&
				  at->exclude_hv == cases[i].xh, "%s %s: exclude u%d k%d h%d", cases[i].fixture, e,
				  at->exclude_user, at->exclude_kernel, at->exclude_hv);
			CHECK_EQ(at->size, sizeof(*at));
			CHECK(!at->sample_period && !at->disabled && !at->inherit && !at->read_format);
		}
		/* pmu_event_attr gives the first PMU's attr */
		CHECK(pmu_event_attr(e, &a) == 0 && !memcmp(&a, &ev.a[0].attr, sizeof(a)));
	}
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		const char *e = errors[i].event;
		int r;

		use(root, errors[i].fixture);
		memset(&ev, 0xa5, sizeof(ev));
		r = pmu__event_parse(e, strlen(e), &ev);
		CHECK_MSG(r == errors[i].err, "%s %s: %d (%s)", errors[i].fixture, e, r, pmu_errmsg());
		CHECK_MSG(ev.n == 0, "%s %s: n=%u on error", errors[i].fixture, e, ev.n);
		CHECK_MSG(strstr(pmu_errmsg(), errors[i].msg), "%s %s: message '%s' lacks '%s'",
			  errors[i].fixture, e, pmu_errmsg(), errors[i].msg);
		CHECK_MSG(!strncmp(pmu_errmsg(), e, strlen(e)), "%s %s: message '%s' does not start with the event",
			  errors[i].fixture, e, pmu_errmsg());
	}
	/* tracepoints through a tracefs copy */
	{
		char dir[PATH_MAX + 64];

		snprintf(dir, sizeof(dir), "%.*s/tracefs", PATH_MAX - 1, root);
		setenv("PMU_TRACEFS", dir, 1);
		use(root, "intel");
		CHECK(pmu__event_parse("sched:sched_switch", 18, &ev) == 0 && ev.n == 1 &&
		      ev.a[0].attr.type == PERF_TYPE_TRACEPOINT && ev.a[0].attr.config == 316 &&
		      !ev.a[0].attr.exclude_user && !ev.a[0].attr.exclude_kernel && !strcmp(ev.a[0].pmu, "tracepoint"));
		CHECK(pmu__event_parse("syscalls:sys_enter_read:k", 25, &ev) == 0 && ev.a[0].attr.config == 611 &&
		      ev.a[0].attr.exclude_user && !ev.a[0].attr.exclude_kernel && ev.a[0].attr.exclude_hv);
		CHECK(pmu__event_parse("bad:bad_id", 10, &ev) == -EINVAL && strstr(pmu_errmsg(), "bad_id/id"));
		CHECK(pmu__event_parse("sched:nope", 10, &ev) == -ENOENT);
		CHECK(pmu__event_parse("sched:sched_switch:x", 20, &ev) == -EINVAL &&
		      strstr(pmu_errmsg(), "bad modifier 'x'"));
		unsetenv("PMU_TRACEFS");
	}
	test_units(root);
	T_DONE();
}
