/* SPDX-License-Identifier: MIT */
/*
 * Intel's topdown read path (slots and the metric events, Ice Lake and
 * later), the library's x86 code as shipped, run on a machine without a PMU
 * through the harness of x86_emu.h. The events are named from the fixture
 * sysfs trees (intel_icl: L1, intel_spr: L2), or raw; this program's
 * syscall() opens each as msr/tsc/ instead (refusing, as the kernel does, a
 * metric event whose leader is not slots or without PERF_FORMAT_GROUP), its
 * mmap() gives the library the simulated pages, its read() and ioctl()
 * answer from the simulated kernel, and the emulated rdpmc of RDPMC_FIXED|3
 * and RDPMC_METRIC read its registers.
 *
 * The simulation is arch/x86/events/intel/core.c's (Linux 6.1): a metric
 * event's value is slots * byte_i / 0xff; each read(2) and reset folds that
 * into the counts and clears FIXED_CTR3 and PERF_METRICS; a context switch
 * folds and saves the registers, and at schedule-in either restores them
 * (the leader's period not at its start) or clears them, and publishes the
 * pages (slots index RDPMC_FIXED|3 + 1, metrics RDPMC_METRIC + 1, offset the
 * count). Every value pmu_read(), pmu_read_full() and pmu_counter_read()
 * return must be what read(2) would have returned at the emulated rdpmc it
 * came from (or the read(2) it came from), and pmu_user_read() must say
 * beforehand which of the two it will be (but where a switch comes inside
 * the call, just before either rdpmc). The figures of the page formula
 * (offset + register), of a decode from the page's offset and of one from
 * the last read(2) that ignored a context switch show what the kernel's
 * counts rule out.
 */
#include "test.h"

#if defined(__SANITIZE_THREAD__)
#define EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMU_TSAN 1
#endif
#endif

#if defined(__x86_64__) && !defined(EMU_TSAN)
#include <limits.h>
#include <sys/ioctl.h>
#include <pmu.h>
#include "sim_topdown.h"

/* What the last read handed out came from, per event. */
enum { OBS_NONE, OBS_RDPMC, OBS_READ };
static struct {
	int src, times;
	uint64_t count, en, run;
} obs[MAXEV];

/* Counts, and how often three other decodes would have been wrong where the library's was right. */
static struct {
	long reads, rdpmc, rdtsc, read2, bad, user_values;
	long page_wrong;	/* the page's formula: offset + sign-extended register */
	long offset_wrong;	/* offset + the register decoded (slots, or slots * byte / 0xff) */
	long switch_values, base_wrong;	/* after a switch: the last read(2) + the register decoded */
} st;
static long p_rdpmc, p_rdtsc, p_read2;


/* ---- the interposers ---- */

/* read(2) of the group: the kernel folds and clears the registers, the pages stay as they are. */
INTERPOSE ssize_t read(int fd, void *buf, size_t n)
{
	uint64_t *b = buf;

	if (td_fd(fd) < 0)
		return syscall(SYS_read, fd, buf, n);
	if (fd != T.fd[0] || n != (3 + T.nev) * sizeof(uint64_t)) {
		st.bad++;
		errno = EINVAL;
		return -1;
	}
	fold(0);
	times(&b[1], &b[2]);
	b[0] = T.nev;
	for (unsigned e = 0; e < T.nev; e++) {
		b[3 + e] = T.base[e] = T.count[e];
		obs[e].src = OBS_READ;
		obs[e].times = 1;
		obs[e].count = T.count[e];
		obs[e].en = b[1];
		obs[e].run = b[2];
	}
	st.read2++;
	return (ssize_t)n;
}

/* A context switch just before the library call's rdpmc number hook_at (-1: none). */
static int hook_at = -1;
static unsigned call_rdpmc;

static uint64_t emu_rdpmc(uint32_t ecx, void *ip)
{
	(void)ip;
	st.rdpmc++;
	if ((int)call_rdpmc++ == hook_at)
		context_switch();
	if (ecx == (1u << 29))
		return T.met;
	if (ecx != (1u << 30 | 3) || !T.active) {
		st.bad++;
		return 0;
	}
	/* The slots register is read first: the counts read(2) would give now. */
	for (unsigned e = 0; e < T.nev; e++) {
		obs[e].src = OBS_RDPMC;
		obs[e].times = 0;
		obs[e].count = truth(e);
	}
	return T.raw;
}

static uint64_t emu_rdtsc(void)
{
	st.rdtsc++;
	for (unsigned e = 0; e < T.nev; e++) {
		uint64_t en, run;

		sk_page_times(&T.C, T.C.clk, &obs[e].en, &obs[e].run);
		sk_truth_times(&T.C, T.C.clk, &en, &run);
		if (en != obs[e].en || run != obs[e].run)
			fail("clock", "page times %" PRIu64 "/%" PRIu64 ", kernel %" PRIu64 "/%" PRIu64, obs[e].en,
			     obs[e].run, en, run);
		obs[e].times = 1;
	}
	return sk_clock_reg(&T.C);
}

/* ---- the cases ---- */

static char fixtures[PATH_MAX];

static void sim_reset(enum model model)
{
	td_sim_init(model);
	memset(&st, 0, sizeof(st));
	p_rdpmc = p_rdtsc = p_read2 = 0;
}

/* Opens events from fixture tree (NULL: raw names only); 0, or pmu_open's error. */
static int td_open_set(struct pmu_set **set, const char *tree, const char *events)
{
	char root[PATH_MAX + 16];
	int r;

	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	setenv("PMU_SYSFS_DEVICES", root, 1);
	emu_cap.active = 1;
	emu_cap.n = 0;
	emu_cap.max = MAXEV;
	emu_open_hook = td_open;
	r = pmu_open(set, events);
	emu_open_hook = NULL;
	emu_cap.active = 0;
	if (r == 0 && (emu_cap.n != (int)T.nev || T.nev != pmu_count(*set)))
		fail(events, "%d pages mapped, %u events opened, %u in the set", emu_cap.n, T.nev, pmu_count(*set));
	for (unsigned e = 0; r == 0 && e < T.nev; e++)
		CHECK_EQ(emu_cap.fd[e], T.fd[e]);
	return r;
}

static void td_close(struct pmu_set *set)
{
	pmu_close(set);
	emu_cap.n = 0;
	T.nev = 0;
}

/* Event e of the set is counter order[e] of the group: the library's order is the user's, slots moved. */
static unsigned order[MAXEV];

static void find_order(struct pmu_set *set)
{
	for (unsigned i = 0; i < pmu_count(set); i++) {
		struct perf_event_attr at;
		unsigned want;

		at.size = sizeof(at);
		CHECK_EQ(pmu_event_attr(pmu_name(set, i), &at), 0);
		want = kind_of(&at);
		order[i] = MAXEV;
		for (unsigned e = 0; e < T.nev; e++)
			if (T.kind[e] == want)
				order[i] = e;
		CHECK(order[i] < T.nev);
	}
}

static int said[MAXEV];

static void call_begin(struct pmu_set *set)
{
	for (unsigned i = 0; i < pmu_count(set); i++)
		said[i] = pmu_user_read(set, i, NULL);
	memset(obs, 0, sizeof(obs));
	call_rdpmc = 0;
	emu_arm();
}

static void check_value(const char *what, const char *call, unsigned i, uint64_t v, const struct pmu_reading *rd)
{
	unsigned e = order[i];

	if (obs[e].src == OBS_NONE) {
		fail(what, "%s: event %u: no rdpmc, no read(2)", call, i);
		return;
	}
	if (obs[e].times && obs[e].en != obs[e].run)
		fail(what, "%s: event %u: multiplexed, where the simulation never is", call, i);
	if (v != obs[e].count)
		fail(what, "%s: event %u (%s): %" PRIu64 ", the kernel's count %" PRIu64 " (from %s)", call, i,
		     T.kind[e] == KIND_SLOTS ? "slots" : "metric", v, obs[e].count,
		     obs[e].src == OBS_RDPMC ? "rdpmc" : "read(2)");
	if (rd && (!obs[e].times || rd->enabled != obs[e].en || rd->running != obs[e].run))
		fail(what, "%s: event %u: times %" PRIu64 "/%" PRIu64 ", want %" PRIu64 "/%" PRIu64, call, i,
		     rd->enabled, rd->running, obs[e].en, obs[e].run);
	if (hook_at < 0 && said[i] != (obs[e].src == OBS_RDPMC))
		fail(what, "%s: event %u: pmu_user_read said %d, the value came from %s", call, i, said[i],
		     obs[e].src == OBS_RDPMC ? "rdpmc" : "read(2)");
	if (obs[e].src == OBS_RDPMC)
		st.user_values++;
}

/* The other decodes against the kernel's counts now; after a switch also the last read(2)'s + decoded. */
static void other_decodes(int after_switch)
{
	for (unsigned e = 0; e < T.nev; e++) {
		uint64_t reg = T.kind[e] == KIND_SLOTS ? T.raw : T.met, off = (uint64_t)emu_wpage[e]->offset;

		st.page_wrong += off + (uint64_t)((int64_t)(reg << 16) >> 16) != truth(e);
		st.offset_wrong += off + value(e, T.raw, T.met) != truth(e);
		st.switch_values += after_switch;
		st.base_wrong += after_switch && T.base[e] + value(e, T.raw, T.met) != truth(e);
	}
}

/* One pmu_read of every event, each value checked (the other decodes counted first). */
static void read_checked(const char *what, struct pmu_set *set)
{
	uint64_t v[MAXEV];
	int r;

	if (T.active)
		other_decodes(0);
	call_begin(set);
	r = pmu_read(set, v);
	emu_disarm();
	st.reads++;
	if (r)
		fail(what, "pmu_read: %d (%s)", r, pmu_errmsg());
	for (unsigned i = 0; !r && i < pmu_count(set); i++)
		check_value(what, "pmu_read", i, v[i], NULL);
}

/* pmu_read, pmu_read_full and pmu_counter_read of every event, each value checked. */
static void read_all(const char *what, struct pmu_set *set)
{
	uint64_t v[MAXEV];
	struct pmu_reading rd[MAXEV];
	unsigned n = pmu_count(set), i;
	int r;

	read_checked(what, set);
	call_begin(set);
	r = pmu_read_full(set, rd);
	emu_disarm();
	st.reads++;
	if (r)
		fail(what, "pmu_read_full: %d (%s)", r, pmu_errmsg());
	for (i = 0; !r && i < n; i++)
		check_value(what, "pmu_read_full", i, rd[i].value, &rd[i]);
	for (i = 0; i < n; i++) {
		call_begin(set);
		r = pmu_counter_read(pmu_counter(set, i), &v[i]);
		emu_disarm();
		st.reads++;
		if (r)
			fail(what, "pmu_counter_read: %d (%s)", r, pmu_errmsg());
		else
			check_value(what, "pmu_counter_read", i, v[i], NULL);
	}
}

/* One pmu_read, with the counts of emulated instructions and read(2) it took. */
static void read_one(const char *what, struct pmu_set *set, long rdpmc, long read2)
{
	p_rdpmc = st.rdpmc;
	p_read2 = st.read2;
	read_checked(what, set);
	if (rdpmc >= 0 && (st.rdpmc - p_rdpmc != rdpmc || st.read2 - p_read2 != read2))
		fail(what, "%ld rdpmc, %ld read(2); want %ld, %ld", st.rdpmc - p_rdpmc, st.read2 - p_read2, rdpmc,
		     read2);
}

static void report(const char *what)
{
	printf("%-9s %5ld reads: %6ld rdpmc, %4ld rdtsc, %4ld read(2); %4ld context switches, %3ld resets; "
	       "%6ld values decoded. Where read: offset + register wrong %ld, offset + decoded %ld; after a "
	       "switch, last read(2) + decoded wrong %ld of %ld\n", what, st.reads, st.rdpmc, st.rdtsc, st.read2,
	       T.switches, T.resets, st.user_values, st.page_wrong, st.offset_wrong, st.base_wrong,
	       st.switch_values);
	CHECK_EQ(st.bad + T.bad, 0);
}

static const uint8_t frac_a[8] = { 100, 50, 60, 45, 30, 20, 40, 25 };
static const uint8_t frac_b[8] = { 120, 40, 50, 45, 60, 30, 20, 30 };

/* The fixed steps: counting, the decode, a switch (read(2) once, then the decode), index 0, a reset. */
static void case_steps(const char *what, const char *tree, const char *events, enum model model)
{
	struct pmu_set *set;
	const char *why;

	sim_reset(model);
	if (td_open_set(&set, tree, events)) {
		fail(what, "%s: %s", events, pmu_errmsg());
		return;
	}
	CHECK_EQ(T.kind[0], KIND_SLOTS);	/* slots leads, wherever it was named */
	find_order(set);
	CHECK_EQ(pmu_user_read(set, 0, &why), 0);	/* no read(2) yet to count from */
	CHECK(strstr(why, "last read(2)") != NULL);
	run_for(1000000, frac_a);
	read_one(what, set, 0, 1);	/* the first read: read(2), the base */
	CHECK_EQ(pmu_user_read(set, 0, &why), 1);
	CHECK(strstr(why, "topdown decode") != NULL);
	run_for(2000000, frac_a);
	read_one(what, set, 2, 0);	/* rdpmc of slots and of the metrics */
	run_for(3000000, frac_b);
	read_all(what, set);

	/* A context switch: the pages change, one read(2), then the decode again. */
	context_switch();
	run_for(500000, frac_b);
	CHECK_EQ(pmu_user_read(set, 0, &why), 0);
	CHECK(strstr(why, "changed since") != NULL);
	read_one(what, set, 0, 1);
	run_for(700000, frac_a);
	read_one(what, set, 2, 0);
	/*
	 * After a switch the registers were restored (RESTORE: the page's offset
	 * already holds what they count, slots's too) or cleared (ZERO: the last
	 * read(2)'s counts miss what came before the switch): each of the two
	 * decodes is wrong in one of the kernel's ways, the library's read(2) in none.
	 */
	context_switch();
	run_for(900000, frac_b);
	{
		long pw = st.page_wrong, ow = st.offset_wrong, bw = st.base_wrong;

		other_decodes(1);
		printf("%s: after a switch (%s), of %u events: offset + register wrong for %ld, offset + decoded "
		       "%ld, last read(2) + decoded %ld\n", what, model == RESTORE ? "registers restored" :
		       "registers cleared", T.nev, st.page_wrong - pw, st.offset_wrong - ow, st.base_wrong - bw);
		/* slots: offset + register is right only where the registers were cleared */
		CHECK_EQ(st.page_wrong - pw, model == RESTORE ? T.nev : T.nev - 1);
		CHECK_EQ(st.offset_wrong - ow, model == RESTORE ? T.nev : 0);
		CHECK_EQ(st.base_wrong - bw, model == RESTORE ? 0 : T.nev);
	}
	read_all(what, set);

	/* Index 0 for one read (user access withdrawn): read(2); back, the pages changed: read(2) again. */
	run_for(100000, frac_a);
	T.hide = 1;
	publish();
	CHECK_EQ(pmu_user_read(set, 1, &why), 0);
	read_one(what, set, 0, 1);
	T.hide = 0;
	publish();
	run_for(100000, frac_b);
	read_one(what, set, 0, 1);
	run_for(100000, frac_b);
	read_one(what, set, 2, 0);

	/* pmu_reset: counts from 0, the next read a read(2). */
	run_for(100000, frac_a);
	CHECK_EQ(pmu_reset(set), 0);
	run_for(4000, frac_b);
	read_one(what, set, 0, 1);
	CHECK(obs[0].count <= 4000);
	run_for(6000, frac_b);
	read_one(what, set, 2, 0);
	CHECK_EQ(obs[0].count, 10000);
	td_close(set);
	report(what);
}

/* Random steps: counting, switches, index 0, resets, reads of each kind. */
static void case_random(const char *what, const char *tree, const char *events, enum model model)
{
	struct pmu_set *set;
	uint8_t f[8];
	long i, n = t_scale(3000);

	sim_reset(model);
	if (td_open_set(&set, tree, events)) {
		fail(what, "%s: %s", events, pmu_errmsg());
		return;
	}
	find_order(set);
	for (i = 0; i < n; i++) {
		unsigned k = (unsigned)(rnd() % 16);

		random_fractions(f);
		run_for(rnd() % (k < 2 ? 1ull << 36 : 100000), f);
		if (k == 2) {
			context_switch();
			run_for(1 + rnd() % 100000, f);
			other_decodes(1);
		}
		if (k == 3) {
			T.hide = !T.hide;
			publish();
		}
		if (k == 4)
			CHECK_EQ(pmu_reset(set), 0);
		if (k == 5)
			T.model = T.model == ZERO ? RESTORE : ZERO;
		if (k < 8)
			read_all(what, set);
		else
			read_one(what, set, -1, -1);
	}
	td_close(set);
	CHECK(st.user_values > 0 && st.read2 > 0 && st.page_wrong > 0 && st.offset_wrong > 0);
	report(what);
}

/* A context switch inside the decode, before either rdpmc: read(2) answers, then the decode again. */
static void case_interrupted(const char *what, enum model model)
{
	struct pmu_set *set;

	td_sim_init(model);
	memset(&st, 0, sizeof(st));
	if (td_open_set(&set, "intel_spr", "slots,topdown-retiring,topdown-heavy-ops,topdown-mem-bound")) {
		fail(what, "%s", pmu_errmsg());
		return;
	}
	find_order(set);
	run_for(100000, frac_a);
	read_one(what, set, 0, 1);
	for (int at = 0; at < 2; at++) {
		run_for(200000, frac_a);
		hook_at = at;
		read_one(what, set, 2, 1);	/* the lock moved on under the decode */
		hook_at = -1;
		run_for(300000, frac_b);
		read_one(what, set, 2, 0);
	}
	CHECK_EQ(T.switches, 2);
	td_close(set);
	report(what);
}

/* Opened disabled: read(2) until enabled, then the decode from the first read(2) after. */
static void case_disabled(void)
{
	PMU_OPTS(o, .flags = PMU_DISABLED);
	struct pmu_set *set;
	char root[PATH_MAX + 16];

	td_sim_init(RESTORE);
	memset(&st, 0, sizeof(st));
	snprintf(root, sizeof(root), "%s/intel_icl", fixtures);
	setenv("PMU_SYSFS_DEVICES", root, 1);
	emu_cap.active = 1;
	emu_cap.n = 0;
	emu_cap.max = MAXEV;
	emu_open_hook = td_open;
	CHECK_EQ(pmu_open_opts(&set, "topdown-be-bound,slots", &o), 0);
	emu_open_hook = NULL;
	emu_cap.active = 0;
	if (t_failures)
		return;
	find_order(set);
	run_for(5000, frac_a);
	read_one("disabled", set, 0, 1);
	CHECK_EQ(obs[0].count, 0);	/* slots, which the library put first, counted nothing */
	CHECK_EQ(pmu_enable(set), 0);
	run_for(5000, frac_a);
	read_one("disabled", set, 0, 1);
	run_for(5000, frac_b);
	read_one("disabled", set, 2, 0);
	CHECK_EQ(obs[0].count, 10000);
	td_close(set);
	report("disabled");
}

/* Metric events that cannot be read: refused at open, naming the event. */
static void case_refused(void)
{
	static const struct { const char *tree, *events, *names; unsigned flags; } refuse[] = {
		{ "intel_icl", "topdown-retiring", "topdown-retiring", 0 },
		{ "intel_icl", "r8000,instructions", "r8000", 0 },
		{ "intel_spr", "cycles,cpu/event=0x00,umask=0x87/", "cpu/event=0x00,umask=0x87/", 0 },
		{ "intel_icl", "slots,topdown-fe-bound", "topdown-fe-bound", PMU_NO_GROUP },
	};
	struct pmu_set *set;

	for (unsigned k = 0; k < sizeof(refuse) / sizeof(refuse[0]); k++) {
		PMU_OPTS(o, .flags = refuse[k].flags);
		char root[PATH_MAX + 16];
		int r;

		sim_reset(ZERO);
		snprintf(root, sizeof(root), "%s/%s", fixtures, refuse[k].tree);
		setenv("PMU_SYSFS_DEVICES", root, 1);
		emu_open_hook = td_open;
		r = pmu_open_opts(&set, refuse[k].events, &o);
		emu_open_hook = NULL;
		CHECK_EQ(r, -EINVAL);
		CHECK_MSG(strstr(pmu_errmsg(), refuse[k].names) && strstr(pmu_errmsg(), "slots"), "%s", pmu_errmsg());
		printf("refused: %s: %s\n", refuse[k].events, pmu_errmsg());
		CHECK_EQ(T.nev, 0);	/* nothing reached the kernel */
		if (r == 0)
			pmu_close(set);
	}
	T.bad = 0;	/* cycles and instructions are not the simulation's */
}

static void find_fixtures(void)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (realpath("test/fixtures/intel_spr", fixtures) && realpath("test/fixtures", fixtures))
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 40);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		strcat(exe, "/../../test/fixtures");
		if (realpath(exe, fixtures))
			return;
	}
	T_SKIP("the fixture trees (test/fixtures) are not found");
}

int main(void)
{
	char buf[32];
	FILE *f;

	if (t_under_valgrind())
		T_SKIP("valgrind does not know rdpmc (SIGILL, not the #GP the emulation takes over)");
	find_fixtures();
	emu_setup(MAXEV);
	emu_ioctl_hook = td_ioctl;
	f = fopen("/sys/bus/event_source/devices/msr/type", "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		T_SKIP("no msr PMU here, whose tsc event stands in for the topdown events");
	fclose(f);
	T.msr_type = atoi(buf);
	{
		/* What td_open() opens in the topdown events' place (paranoid 2 refuses it to users). */
		struct perf_event_attr m = { .type = (uint32_t)T.msr_type, .size = sizeof(m) };
		long fd = emu_perf_open(&m, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0)
			T_SKIP("msr/tsc/, which stands in for the topdown events, does not open here: %s",
			       strerror((int)-fd));
		close((int)fd);
	}

	case_steps("l1", "intel_icl", "slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound",
		   RESTORE);
	case_steps("l1-zero", "intel_icl", "topdown-fe-bound,slots,topdown-retiring", ZERO);
	case_steps("l2", "intel_spr", "topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound,"
		   "topdown-heavy-ops,topdown-br-mispredict,topdown-fetch-lat,topdown-mem-bound,slots", RESTORE);
	case_steps("raw", "intel_icl", "r0400,r8100,cpu/event=0x00,umask=0x83/", ZERO);
	case_random("random-l1", "intel_icl", "slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,"
		    "topdown-be-bound", RESTORE);
	case_random("random-l2", "intel_spr", "slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,"
		    "topdown-be-bound,topdown-heavy-ops,topdown-br-mispredict,topdown-fetch-lat,topdown-mem-bound",
		    ZERO);
	case_interrupted("inside", RESTORE);
	case_interrupted("inside0", ZERO);
	case_disabled();
	case_refused();
	T_DONE();
}

#else
int main(void)
{
	(void)t_failures;
#ifdef __x86_64__
	T_SKIP("ThreadSanitizer: the emulated rdpmc runs in a signal handler");
#else
	T_SKIP("x86-64 only: the test emulates the rdpmc instruction");
#endif
}
#endif
