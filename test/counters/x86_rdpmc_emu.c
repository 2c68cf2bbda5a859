/* SPDX-License-Identifier: MIT */
/*
 * The library's x86-64 user-space read, built as shipped (libpmu.a, and
 * libpmu.so in x86_rdpmc_emu_so), run end to end on a machine without a PMU:
 *  - msr/tsc/ opens for real; this program's mmap() hands the library a page
 *    of a simulated kernel (sim_kernel.h) in place of the event's, and its
 *    read() answers read(2) of the event from the same simulation;
 *  - rdpmc faults and so does rdtsc, and the harness (x86_emu.h) returns the
 *    simulated register named by ECX (its width's bits, zero-extended into
 *    EDX:EAX) or clock.
 * Each emulated instruction and each read(2) records the exact truth of that
 * moment; every value pmu_read() and pmu_read_full() return must be the truth
 * of the last one of them for that event (scaled with sim_ref.h's arithmetic
 * when multiplexed): never a stale offset, never a torn snapshot. Cases run
 * deterministically (the handler plays the kernel interrupting a read) and
 * against a concurrent writer thread.
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
#include <dlfcn.h>
#include <pthread.h>
#include <pmu.h>
#include "sim_kernel.h"
#include "x86_emu.h"

/* x86 registers by page index: general-purpose 0-7 (rdpmc ecx = n), fixed 0-2 (ecx = 1 << 30 | n). */
static const uint32_t x86_regs[] = { 1, 2, 3, 4, 5, 6, 7, 8, (1u << 30) + 1, (1u << 30) + 2, (1u << 30) + 3 };
#define NREGS (sizeof(x86_regs) / sizeof(x86_regs[0]))
#define FIXED0 8		/* the register index of fixed counter 0 */

static struct sk K;			/* the simulated kernel, on emu_wpage[] */

/* The truth behind the last value handed out for each event. */
enum { OBS_NONE, OBS_RDPMC, OBS_READ };
static struct obs {
	int src;
	int times;		/* en/run are set */
	uint64_t count, en, run;
	uint64_t ten, trun;	/* what read(2) would have said for the times */
} obs[SK_MAX_EV];

/*
 * Set by the deterministic cases: before each call, what pmu_user_read()
 * says of each event must be what the call then does (a user-space read or
 * read(2)). Off where the page changes during the call (hooks, the writer).
 */
static int user_read_now;
static int user_read_said[SK_MAX_EV];

/* The emulation's counts; reset per case. */
static struct {
	long reads, rdpmc, used, rdtsc, read2, bad;
} st;
static long p_rdpmc, p_rdtsc, p_read2;	/* as of the last expect_counts() */

static struct {
	volatile long calls;		/* library calls begun */
	void (*hook)(unsigned n);	/* runs in the n-th rdpmc of a call: the kernel interrupting it */
	unsigned call_rdpmc;
	int last_ev;
	uint32_t last_ecx;
	void *sites[8];			/* where the rdpmc instructions are */
	unsigned nsites;
} emu;

/* Interposes read: read(2) of the group leader, as the kernel would answer it now. */
INTERPOSE ssize_t read(int fd, void *buf, size_t n)
{
	uint64_t *b = buf, en, run;
	unsigned i, nev = K.nev;

	if (!emu_cap.n || fd != emu_cap.fd[0])
		return syscall(SYS_read, fd, buf, n);
	if (n != (nev > 1 ? 3 + nev : 3) * sizeof(uint64_t)) {
		st.bad++;
		errno = EINVAL;
		return -1;
	}
	sk_lock(&K);
	sk_truth_times(&K, K.clk, &en, &run);
	for (i = 0; i < nev; i++) {
		obs[i] = (struct obs){ OBS_READ, 1, K.ev[i].truth, en, run, en, run };
		if (nev > 1)
			b[3 + i] = K.ev[i].truth;
	}
	sk_unlock(&K);
	if (nev > 1)
		b[0] = nev;
	else
		b[0] = obs[0].count;
	b[1] = en;
	b[2] = run;
	st.read2++;
	return (ssize_t)n;
}

static uint64_t emu_rdpmc(uint32_t ecx, void *ip)
{
	unsigned k, s;
	uint64_t v;
	int e;

	if (emu.hook)
		emu.hook(emu.call_rdpmc);
	emu.call_rdpmc++;
	st.rdpmc++;
	emu.last_ecx = ecx;
	for (s = 0; s < emu.nsites && emu.sites[s] != ip; s++)
		;
	if (s == emu.nsites && s < 8)
		emu.sites[emu.nsites++] = ip;
	sk_lock(&K);
	for (k = 0; k < K.nreg && K.reg_idx[k] != ecx + 1; k++)
		;
	if (k == K.nreg) {	/* hardware would #GP: no such counter */
		sk_unlock(&K);
		st.bad++;
		emu.last_ev = -1;
		return 0;
	}
	e = K.reg_ev[k];
	v = K.reg[k];	/* only its width's bits: zero-extended, as rdpmc gives them */
	obs[e] = (struct obs){ OBS_RDPMC, 0, K.ev[e].truth, 0, 0, 0, 0 };
	emu.last_ev = e;
	sk_unlock(&K);
	return v;
}

/* The clock read follows the counter read of the same event: its times. */
static uint64_t emu_rdtsc(void)
{
	uint64_t c;
	int e = emu.last_ev;

	st.rdtsc++;
	sk_lock(&K);
	c = sk_clock_reg(&K);
	if (e >= 0) {
		obs[e].times = 1;
		sk_page_times(&K, c, &obs[e].en, &obs[e].run);
		sk_truth_times(&K, c, &obs[e].ten, &obs[e].trun);
	}
	sk_unlock(&K);
	return c;
}

/* Around each library call: rdtsc faults only there (the vDSO clock uses it too). */
static void emu_on(void)
{
	emu.call_rdpmc = 0;
	emu.last_ev = -1;
	memset(obs, 0, sizeof(obs));
	emu.calls++;
	emu_arm();
}

static void emu_off(void)
{
	emu_disarm();
}

/* A simulated group of nev events; short_bits 0 for x86's clock, else cap_user_time_short. */
static void sim_begin(unsigned nev, unsigned short_bits, uint64_t seed)
{
	sk_init(&K, nev, emu_wpage, x86_regs, NREGS, short_bits, seed);
	memset(&st, 0, sizeof(st));
	p_rdpmc = p_rdtsc = p_read2 = 0;
	emu.hook = NULL;
	user_read_now = 1;
}

static const char *const event_lists[] = { NULL, "msr/tsc/", "msr/tsc/,msr/tsc/",
					   "msr/tsc/,msr/tsc/,msr/tsc/", "msr/tsc/,msr/tsc/,msr/tsc/,msr/tsc/" };

/* Opens K.nev msr/tsc/ events on the simulated pages. */
static struct pmu_set *sim_open(void)
{
	struct pmu_set *set = NULL;
	const char *why;
	unsigned i;
	int r;

	emu_cap.active = 1;
	emu_cap.n = 0;
	emu_cap.max = (int)K.nev;
	r = pmu_open(&set, event_lists[K.nev]);
	emu_cap.active = 0;
	if (r < 0)
		T_SKIP("%s does not open here: %s", event_lists[K.nev], pmu_errmsg());
	if (emu_cap.n != (int)K.nev) {
		pmu_user_read(set, 0, &why);
		printf("SKIP: the library mapped %d of %u event pages (%s)\n", emu_cap.n, K.nev, why);
		pmu_close(set);
		exit(77);
	}
	for (i = 0; i < K.nev; i++)
		CHECK_EQ(pmu_user_read(set, i, &why), 1);
	return set;
}

static void sim_close(struct pmu_set *set)
{
	pmu_close(set);
	emu_cap.n = 0;
}

/* The user path's times are the page's formula; it must be the kernel's clock (within 1 ns when short). */
static void check_clock(const char *what, unsigned e)
{
	const struct obs *o = &obs[e];

	if (o->src == OBS_RDPMC && o->times &&
	    (o->en - o->ten > (uint64_t)K.is_short || o->run - o->trun > (uint64_t)K.is_short))
		fail(what, "event %u: page times %" PRIu64 "/%" PRIu64 ", kernel clock %" PRIu64 "/%" PRIu64,
		     e, o->en, o->run, o->ten, o->trun);
}

/*
 * The checked calls: emu_call_begin(), the library call, emu_call_end(),
 * then check_count() or check_reading() for each event it returned. A
 * one-counter read (pmu_counter_read()) needs only these four lines.
 */
static void emu_call_begin(struct pmu_set *set)
{
	for (unsigned e = 0; user_read_now && e < K.nev; e++)
		user_read_said[e] = pmu_user_read(set, e, NULL);
	emu_on();
}

static int emu_call_end(const char *what, const char *call, int r)
{
	emu_off();
	st.reads++;
	if (r)
		fail(what, "%s: %d (%s)", call, r, pmu_errmsg());
	return r;
}

static const char *src_name(const struct obs *o)
{
	return o->src == OBS_RDPMC ? "rdpmc" : o->src == OBS_READ ? "read(2)" : "nothing";
}

static void check_common(const char *what, const char *call, unsigned e)
{
	const struct obs *o = &obs[e];

	check_clock(what, e);
	st.used += o->src == OBS_RDPMC;
	if (user_read_now && user_read_said[e] != (o->src == OBS_RDPMC))
		fail(what, "%s: event %u: pmu_user_read said %d, the value came from %s", call, e,
		     user_read_said[e], src_name(o));
}

/* A count (pmu_read's): the truth behind it, scaled when multiplexed. */
static void check_count(const char *what, const char *call, unsigned e, uint64_t v)
{
	const struct obs *o = &obs[e];
	/* Not multiplexed (enabled == running, or times not needed): the count as it is. */
	uint64_t want = o->times && o->en != o->run ? ref_scale(o->count, o->en, o->run) : o->count;

	if (o->src == OBS_NONE)
		fail(what, "%s: event %u: %" PRIu64 " without a counter read or read(2)", call, e, v);
	else if (v != want)
		fail(what, "%s: event %u: %" PRIu64 ", want %" PRIu64 " (from %s: count %" PRIu64
		     " enabled %" PRIu64 " running %" PRIu64 ")", call, e, v, want, src_name(o), o->count,
		     o->en, o->run);
	check_common(what, call, e);
}

/* A reading (pmu_read_full's): the truth behind it, times and all. */
static void check_reading(const char *what, const char *call, unsigned e, const struct pmu_reading *rd)
{
	const struct obs *o = &obs[e];

	if (o->src == OBS_NONE || !o->times)
		fail(what, "%s: event %u: no counter and clock read, no read(2)", call, e);
	else if (rd->value != o->count || rd->enabled != o->en || rd->running != o->run)
		fail(what, "%s: event %u: %" PRIu64 " %" PRIu64 " %" PRIu64 ", want %" PRIu64 " %" PRIu64
		     " %" PRIu64 " (from %s)", call, e, rd->value, rd->enabled, rd->running, o->count, o->en,
		     o->run, src_name(o));
	check_common(what, call, e);
}

/* pmu_read, each value checked against the truth behind it. */
static void read_check(const char *what, struct pmu_set *set, uint64_t *vals)
{
	emu_call_begin(set);
	if (!emu_call_end(what, "pmu_read", pmu_read(set, vals)))
		for (unsigned e = 0; e < K.nev; e++)
			check_count(what, "pmu_read", e, vals[e]);
}

/* pmu_counter_read() of event e: its value as pmu_read() would give it (its path is its own). */
static void counter_check(const char *what, struct pmu_set *set, unsigned e, uint64_t *v)
{
	const struct pmu_counter *c = pmu_counter(set, e);
	int said = user_read_now;

	user_read_now = 0;
	emu_call_begin(set);
	if (!emu_call_end(what, "pmu_counter_read", pmu_counter_read(c, v)))
		check_count(what, "pmu_counter_read", e, *v);
	user_read_now = said;
}

static void read_full_check(const char *what, struct pmu_set *set, struct pmu_reading *rd)
{
	emu_call_begin(set);
	if (!emu_call_end(what, "pmu_read_full", pmu_read_full(set, rd)))
		for (unsigned e = 0; e < K.nev; e++)
			check_reading(what, "pmu_read_full", e, &rd[e]);
}

static void report(const char *what)
{
	printf("%-12s %6ld reads: %7ld rdpmc emulated (%ld used, %ld retried or restarted), "
	       "%6ld rdtsc, %5ld read(2)\n", what, st.reads, st.rdpmc, st.used, st.rdpmc - st.used,
	       st.rdtsc, st.read2);
	CHECK_EQ(st.bad, 0);
	memset(&st, 0, sizeof(st));
}

/* Reads with these counts of emulated instructions and read(2) calls, since the last. */
static void expect_counts(const char *what, long rdpmc, long rdtsc, long read2)
{
	if (rdpmc >= 0 && (st.rdpmc - p_rdpmc != rdpmc || st.rdtsc - p_rdtsc != rdtsc || st.read2 - p_read2 != read2))
		fail(what, "%ld rdpmc, %ld rdtsc, %ld read(2); want %ld, %ld, %ld", st.rdpmc - p_rdpmc,
		     st.rdtsc - p_rdtsc, st.read2 - p_read2, rdpmc, rdtsc, read2);
	p_rdpmc = st.rdpmc;
	p_rdtsc = st.rdtsc;
	p_read2 = st.read2;
}

static void locked_count(unsigned e, uint64_t d)
{
	sk_lock(&K);
	sk_count(&K, &K.ev[e], d);
	sk_unlock(&K);
}

static void locked_tick(uint64_t cycles)
{
	sk_lock(&K);
	K.clk += cycles;
	sk_unlock(&K);
}

/* One event: reads, a fixed counter, the clock, pmu_user_read. */
static void case_basic(void)
{
	struct pmu_set *set;
	struct pmu_reading rd[1];
	uint64_t v[1];
	const char *why;

	sim_begin(1, 0, 1);
	set = sim_open();
	read_check("basic", set, v);
	CHECK_EQ(v[0], 1000);
	expect_counts("basic", 1, 0, 0);
	CHECK_EQ(emu.last_ecx, 0);		/* page index 1: ecx 0 */
	locked_count(0, 123456);
	read_check("basic", set, v);
	CHECK_EQ(v[0], 1000 + 123456);
	expect_counts("basic", 1, 0, 0);

	/* One second of a 2.5 GHz TSC: times from rdtsc. */
	locked_tick(2500000000ull);
	read_full_check("basic", set, rd);
	expect_counts("basic", 1, 1, 0);
	CHECK(rd[0].enabled >= 999999999 && rd[0].enabled <= 1000000001);
	CHECK_EQ(rd[0].running, rd[0].enabled);

	CHECK_EQ(pmu_user_read(set, 0, &why), 1);
	CHECK(strstr(why, "x86_64") != NULL);

	/* On fixed counter 0: ecx carries bit 30. */
	sk_lock(&K);
	sk_fold(&K, &K.ev[0]);
	sk_program(&K, &K.ev[0], FIXED0, 48, 1000);
	sk_update(&K);
	sk_count(&K, &K.ev[0], 77);
	sk_unlock(&K);
	read_check("basic", set, v);
	CHECK_EQ(v[0], 1000 + 123456 + 77);
	CHECK_EQ(emu.last_ecx, 1u << 30);
	expect_counts("basic", 1, 0, 0);
	/* The inline one-counter read: one rdpmc, the same value. */
	counter_check("basic", set, 0, v);
	CHECK_EQ(v[0], 1000 + 123456 + 77);
	expect_counts("basic", 1, 0, 0);
	sim_close(set);
	report("basic");
}

/* 48- and 40-bit registers programmed near their wrap, read after it, before the interrupt. */
static void case_wrap(void)
{
	static const unsigned widths[] = { 48, 40 };
	static const uint64_t counts[] = { 0, 123456789, 1ull << 40, UINT64_MAX - 5 };
	struct pmu_set *set;
	uint64_t v[1];
	long wrong_unsigned = 0, n = 0, i;
	unsigned w, l, d, c;

	sim_begin(1, 0, 2);
	set = sim_open();
	for (i = -1; i < t_scale(3000); i++) {
		for (w = 0; w < 2; w++) {
			uint64_t half = 1ull << (widths[w] - 1);
			uint64_t lefts[] = { 1, 2, 1000, half - 1, half, half / 3 };

			for (l = 0; l < 6; l++) {
				uint64_t left = lefts[l];
				uint64_t deltas[] = { 0, 1, left - 1, left, left + 1, left + half - 1 };

				for (d = 0; d < 6; d++) {
					for (c = 0; c < 4; c++) {
						struct sk_event *e = &K.ev[0];
						uint64_t count0 = counts[c], delta = deltas[d];
						unsigned width = widths[w];

						if (i >= 0) {	/* then random ones */
							width = widths[rnd() % 2];
							half = 1ull << (width - 1);
							left = 1 + rnd() % half;
							delta = rnd() % (left + half);
							count0 = rnd_edge();
						}
						sk_lock(&K);
						e->count = e->truth = count0;
						sk_program(&K, e, (int)(rnd() % NREGS), width, left);
						sk_update(&K);
						sk_count(&K, e, delta);
						sk_unlock(&K);
						read_check("wrap", set, v);
						if (v[0] != count0 + delta)
							fail("wrap", "width %u left 0x%" PRIx64 " delta 0x%" PRIx64
							     ": %" PRIu64 ", want %" PRIu64, width, left, delta,
							     v[0], count0 + delta);
						/* An unsigned mask in place of the sign extension gets these wrong. */
						wrong_unsigned += (uint64_t)e->pg->offset + K.reg[e->reg] != count0 + delta;
						n++;
						if (i >= 0)
							goto next;
					}
				}
			}
		}
next:;
	}
	expect_counts("wrap", n, 0, 0);
	CHECK(wrong_unsigned > n / 10);
	printf("wrap: %ld register states through the library; an unsigned mask would have been wrong in %ld\n",
	       n, wrong_unsigned);
	sim_close(set);
	report("wrap");
}

/*
 * Index 0 while the counter still counts (the page's offset goes stale), off
 * the PMU, then back on, multiplexed: scaled with the clock's times.
 */
static void case_index0(unsigned short_bits, const char *what)
{
	struct pmu_set *set;
	struct pmu_reading rd[1];
	uint64_t v[1];
	const char *why;

	sim_begin(1, short_bits, 3);
	set = sim_open();
	locked_tick(1000);
	sk_lock(&K);
	sk_reschedule(&K, SK_HIDDEN);
	sk_count(&K, &K.ev[0], 5000);	/* offset says 1000, the count is 6000 */
	sk_unlock(&K);
	CHECK_EQ(K.ev[0].pg->index, 0);
	CHECK_EQ(K.ev[0].pg->offset, 1000);
	read_check(what, set, v);
	CHECK_EQ(v[0], 6000);
	expect_counts(what, 0, 0, 1);
	read_full_check(what, set, rd);
	CHECK_EQ(rd[0].value, 6000);
	expect_counts(what, 0, 0, 1);
	CHECK_EQ(pmu_user_read(set, 0, &why), 0);
	CHECK(strstr(why, "not on a hardware counter") != NULL);

	/* Multiplexed out: the count stops, enabled goes on. */
	sk_lock(&K);
	sk_reschedule(&K, SK_OFF);
	K.clk += 3000;
	sk_unlock(&K);
	read_check(what, set, v);	/* scaled: enabled > running now */
	expect_counts(what, 0, 0, 1);

	/* Back on: running < enabled, so pmu_read leaves its fast path and scales with the clock. */
	sk_lock(&K);
	sk_reschedule(&K, SK_ON);
	sk_count(&K, &K.ev[0], 2000);
	K.clk += 7000;
	sk_unlock(&K);
	CHECK_EQ(pmu_user_read(set, 0, &why), 1);
	read_check(what, set, v);
	expect_counts(what, 2, 1, 0);	/* the fast path's rdpmc, then the scaled path's rdpmc and rdtsc */
	CHECK(v[0] > 8000);
	read_full_check(what, set, rd);
	expect_counts(what, 1, 1, 0);
	CHECK_EQ(rd[0].value, 8000);
	CHECK(rd[0].running < rd[0].enabled);
	/* Far along the clock (past a short clock's wrap): the same, exactly. */
	locked_tick(short_bits ? 200000 : 1ull << 40);
	read_full_check(what, set, rd);
	read_check(what, set, v);
	expect_counts(what, 3, 2, 0);
	sim_close(set);
	report(what);
}

/* The kernel interrupting a read: hooks run in the n-th emulated rdpmc of a call. */
static void hook_flip(unsigned n)
{
	if (n == 0) {
		sk_lock(&K);
		sk_update(&K);	/* the same contents, the lock moved on */
		sk_unlock(&K);
	}
}

/*
 * An update begun in the first counter read, finished in the third: the
 * second pass sees the lock odd throughout, and a torn page (the new index
 * with the old offset).
 */
static void hook_odd(unsigned n)
{
	struct sk_event *e = &K.ev[0];

	sk_lock(&K);
	if (n == 0) {
		__atomic_store_n(&e->pg->lock, ++e->lock, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		sk_fold(&K, e);
		sk_program(&K, e, FIXED0 + 1, 48, 1ull << 47);
		__atomic_store_n(&e->pg->index, K.reg_idx[FIXED0 + 1], __ATOMIC_RELAXED);
		sk_count(&K, e, 5);
	} else if (n == 2) {
		__atomic_store_n(&e->pg->offset, (int64_t)(e->count - e->prev), __ATOMIC_RELAXED);
		__atomic_store_n(&e->pg->lock, ++e->lock, __ATOMIC_RELEASE);
	}
	sk_unlock(&K);
}

static void hook_move(unsigned n)
{
	if (n == 0) {	/* to fixed counter 0, 40 bits wide, and on */
		sk_lock(&K);
		sk_fold(&K, &K.ev[0]);
		sk_program(&K, &K.ev[0], FIXED0, 40, 3);
		sk_update(&K);
		sk_count(&K, &K.ev[0], 10);	/* wrapped */
		sk_unlock(&K);
	}
}

static void hook_hide(unsigned n)
{
	if (n == 0) {
		sk_lock(&K);
		sk_reschedule(&K, SK_HIDDEN);
		sk_count(&K, &K.ev[0], 500);
		sk_unlock(&K);
	}
}

static void hook_count(unsigned n)
{
	(void)n;
	sk_lock(&K);
	sk_count(&K, &K.ev[0], 3);	/* counting on, no page change: no retry */
	sk_unlock(&K);
}

static void case_hooks(void)
{
	struct pmu_set *set;
	struct pmu_reading rd[1];
	uint64_t v[1];

	sim_begin(1, 0, 4);
	set = sim_open();
	user_read_now = 0;

	emu.hook = hook_count;
	read_check("hooks", set, v);
	expect_counts("hooks", 1, 0, 0);
	CHECK_EQ(v[0], 1003);

	emu.hook = hook_flip;
	read_check("hooks", set, v);
	expect_counts("hooks", 2, 0, 0);
	read_full_check("hooks", set, rd);
	expect_counts("hooks", 2, 2, 0);	/* the clock is read in the discarded pass too */

	emu.hook = hook_odd;
	read_check("hooks", set, v);
	expect_counts("hooks", 4, 0, 0);
	CHECK_EQ(v[0], 1008);

	emu.hook = hook_move;
	read_check("hooks", set, v);
	expect_counts("hooks", 2, 0, 0);
	CHECK_EQ(emu.last_ecx, 1u << 30);
	CHECK_EQ(v[0], 1008 + 10);

	emu.hook = hook_hide;
	read_check("hooks", set, v);
	expect_counts("hooks", 1, 0, 1);	/* index 0 on the retry: read(2), not the stale offset */
	CHECK_EQ(v[0], 1018 + 500);
	CHECK(K.ev[0].pg->offset != 1518);
	emu.hook = NULL;
	sim_close(set);
	report("hooks");
}

/* Four events in one group, one of them without user access: the group's read(2). */
static void case_set4(void)
{
	struct pmu_set *set;
	struct pmu_reading rd[4];
	uint64_t v[4];
	unsigned i;

	sim_begin(4, 0, 5);
	set = sim_open();
	for (i = 0; i < 4; i++)
		locked_count(i, 100 * (i + 1));
	read_check("set4", set, v);
	expect_counts("set4", 4, 0, 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(v[i], 1000 * (i + 1) + 100 * (i + 1));
	locked_tick(12345);
	read_full_check("set4", set, rd);
	expect_counts("set4", 4, 4, 0);

	/*
	 * User access withdrawn from event 2 (its index is 0): every event is
	 * then read with the group's read(2), and pmu_user_read() says so.
	 */
	sk_lock(&K);
	K.ev[2].user = 0;
	sk_update(&K);
	sk_count(&K, &K.ev[3], 9);
	sk_unlock(&K);
	read_check("set4", set, v);
	expect_counts("set4", 4, 0, 1);		/* 0 and 1 twice (fast path, then scaled path), then read(2) */
	CHECK_EQ(v[3], 4409);
	/* One event alone: event 3 still from its page, event 2 through the group's read(2). */
	counter_check("set4", set, 3, &v[3]);
	expect_counts("set4", 1, 0, 0);
	CHECK_EQ(v[3], 4409);
	counter_check("set4", set, 2, &v[2]);
	expect_counts("set4", 0, 0, 1);
	read_full_check("set4", set, rd);
	expect_counts("set4", 2, 2, 1);
	sim_close(set);
	report("set4");
}

/* Against a writer thread: rescheduling, wraps, late overflows, index 0, lock flips. */
static volatile int stop;
static volatile long progress, reads_done;	/* writer steps, reader reads */
static long updates_in_call;	/* page updates made while a library call was reading */

static void *writer(void *arg)
{
	uint64_t seed = 42;

	(void)arg;
	while (!stop) {
		unsigned spin = (unsigned)(splitmix64(&seed) % 8192);

		long calls = emu.calls, updates = K.updates;
		int in_call = emu_sig.armed;

		sk_lock(&K);
		sk_step(&K);
		sk_unlock(&K);
		progress++;
		updates_in_call += K.updates != updates && in_call && emu_sig.armed && emu.calls == calls;
		/* About as long as an emulated instruction takes: a step or two lands inside a read. */
		while (spin--)
			__asm__ volatile("");
		/* About 3 steps a read, or on a busy machine one read could see hundreds. */
		while (!stop && progress >= 3 * reads_done + 9)
			sched_yield();
	}
	return NULL;
}

/*
 * Reader and writer on two different CPUs where there are two: left to the
 * scheduler on a busy machine they often share one and never overlap.
 * Returns whether the reader was moved (restore with *old).
 */
static int pin_apart(pthread_t writer_thread, cpu_set_t *old)
{
	cpu_set_t one;
	int cpu, a = -1, b = -1;

	if (sched_getaffinity(0, sizeof(*old), old))
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE && b < 0; cpu++)
		if (CPU_ISSET(cpu, old)) {
			if (a < 0)
				a = cpu;
			else
				b = cpu;
		}
	if (b < 0)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(b, &one);
	if (pthread_setaffinity_np(writer_thread, sizeof(one), &one))
		return 0;
	CPU_ZERO(&one);
	CPU_SET(a, &one);
	return sched_setaffinity(0, sizeof(one), &one) == 0;
}

static void case_writer(unsigned nev, unsigned short_bits, const char *what)
{
	cpu_set_t cpus;
	int pinned;
	struct pmu_set *set;
	struct pmu_reading rd[SK_MAX_EV];
	uint64_t v[SK_MAX_EV], last[SK_MAX_EV] = { 0 };
	long i, n = t_scale(20000) / nev;
	pthread_t t;
	unsigned e;

	sim_begin(nev, short_bits, 6 + nev);
	set = sim_open();
	user_read_now = 0;
	stop = 0;
	progress = reads_done = updates_in_call = 0;
	CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
	pinned = pin_apart(t, &cpus);
	for (i = 0; i < n; i++) {
		/*
		 * About three writer steps a read, give or take three reads:
		 * never a long run of reads over a page at rest, and reads
		 * spread over the writer's states however fast each kind of
		 * read is.
		 */
		while (progress + 9 < 3 * reads_done)
			sched_yield();
		if (i % 2) {
			read_full_check(what, set, rd);
			for (e = 0; e < nev; e++)
				v[e] = rd[e].value;
		} else if (i % 4 == 2) {
			counter_check(what, set, (unsigned)(i / 4) % nev, v);
		} else {
			read_check(what, set, v);
		}
		reads_done++;
		for (e = 0; e < nev && i % 2; e++) {
			if (v[e] < last[e])
				fail(what, "event %u went back from %" PRIu64 " to %" PRIu64, e, last[e], v[e]);
			last[e] = v[e];
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	if (pinned)
		sched_setaffinity(0, sizeof(cpus), &cpus);
	printf("%s writer: %ld steps, %ld page updates, %ld reschedules (%ld off the PMU, %ld index 0), "
	       "%ld user access withdrawals, %ld late overflows; %ld updates inside a library call\n", what,
	       K.ticks, K.updates, K.reschedules, K.offs, K.hidden, K.no_user, K.overflows, updates_in_call);
	CHECK(st.used > 0);
	CHECK(st.read2 > 0);
	/* Quiet again, on the PMU: exact. */
	sk_lock(&K);
	for (e = 0; e < nev; e++)
		K.ev[e].user = 1;
	sk_reschedule(&K, SK_ON);
	sk_unlock(&K);
	read_full_check(what, set, rd);
	for (e = 0; e < nev; e++)
		CHECK_EQ(rd[e].value, K.ev[e].truth);
	sim_close(set);
	report(what);
}

/* Where the library's rdpmc instructions are: in libpmu.so for the shared build. */
static void show_sites(void)
{
	for (unsigned s = 0; s < emu.nsites; s++) {
		Dl_info info;

		memset(&info, 0, sizeof(info));
		const char *obj = dladdr(emu.sites[s], &info) && info.dli_fname ? info.dli_fname : "?";

		printf("rdpmc at %p in %s%s%s\n", emu.sites[s], obj, info.dli_sname ? " " : "",
		       info.dli_sname ? info.dli_sname : "");
	}
}

int main(void)
{
	if (t_under_valgrind())
		T_SKIP("valgrind does not know rdpmc (SIGILL, not the #GP the emulation takes over)");
	emu_setup(SK_MAX_EV);

	case_basic();
	case_wrap();
	case_index0(0, "multiplex");
	case_index0(40, "short");
	case_hooks();
	case_set4();
	case_writer(1, 0, "writer1");
	case_writer(4, 40, "writer4");
	show_sites();
	T_DONE();
}

#else
int main(void)
{
	(void)t_failures;
#ifdef __x86_64__
	T_SKIP("ThreadSanitizer: the emulated rdpmc runs in a signal handler the simulated kernel locks against");
#else
	T_SKIP("x86-64 only: the test emulates the rdpmc instruction");
#endif
}
#endif
