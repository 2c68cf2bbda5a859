/* SPDX-License-Identifier: MIT */
/*
 * pmu__read_page against a concurrent writer. A "kernel" thread owns a fake
 * PMU (33 counter registers and a clock) and the event's mmap page:
 *  - the hardware counts outside the lock: the event's register and the clock
 *    tick, and registers that belong to other events change at random;
 *  - under the seqlock (lock++, fields, lock++, as perf_event_update_userpage)
 *    it reschedules: folds the register into the count, programs the event on
 *    another register and width near the wrap point (prev = -left, register =
 *    prev & mask, offset = count - prev), takes it off the PMU (index 0),
 *    withdraws user access (cap_user_rdpmc 0), and handles overflows late, so
 *    that registers are read after they wrapped.
 * Reader threads read the page through pmu__read_page and, when it says no,
 * through a "read(2)" of the kernel's count. Each value must lie between the
 * kernel's count just before and just after the read (so never torn, never a
 * stale offset) and never go backwards; times must match the clock read in
 * the same snapshot. At the end the page must give the kernel's exact count.
 */
#include <pthread.h>
#include <sched.h>
#include "test.h"
#include "pmu.h"	/* pmu_inl_page_read(), the inline read */
#include "counters/readpage.h"
#include "sim_ref.h"

#define NREG 34			/* page indices 1..33 */
#define NREADERS 2
#define NS_PER_TICK 3		/* time_mult 3 << 20, time_shift 20: exact */

#define ST(p, v, mo) __atomic_store_n(p, v, mo)
#define LD(p, mo) __atomic_load_n(p, mo)
#ifdef PMU_TSAN		/* TSan does not model fences: sequentially consistent throughout */
#define RLX __ATOMIC_SEQ_CST
#define REL __ATOMIC_SEQ_CST
#define ACQ __ATOMIC_SEQ_CST
#define WFENCE() do { } while (0)
#else
#define RLX __ATOMIC_RELAXED
#define REL __ATOMIC_RELEASE
#define ACQ __ATOMIC_ACQUIRE
#define WFENCE() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif

static struct perf_event_mmap_page pg __attribute__((aligned(4096)));
static uint64_t reg[NREG];		/* counter registers, by page index */
static uint64_t clk;			/* the clock register, in ticks */

/* The kernel's count as read(2) returns it: its own seqlock, odd while it changes. */
static uint32_t kseq;
static uint64_t kcount;

static int stop;
static long progress;		/* the writer's ticks, for readers to wait on */
static long reads_per_reader;

static uint64_t k_read(void)	/* the fallback, like read(2) */
{
	uint32_t s;
	uint64_t c;

	for (;;) {
		s = LD(&kseq, ACQ);
		if (s & 1) {
			sched_yield();
			continue;
		}
		c = LD(&kcount, ACQ);
		if (LD(&kseq, ACQ) == s)
			return c;
	}
}

/* Per reader thread: what the last counter and clock reads returned. */
static __thread uint64_t last_clk;
static __thread long bad_idx;

static uint64_t fake_rdpmc(uint32_t idx)
{
	if (idx == 0 || idx >= NREG) {
		bad_idx++;
		return 0;
	}
	return LD(&reg[idx], ACQ);
}

static uint64_t fake_clock(void)
{
	return last_clk = LD(&clk, ACQ);
}

/* The writer's private state. */
static struct {
	uint64_t count;		/* the truth */
	uint64_t prev;		/* hwc->prev_count */
	unsigned width;
	uint32_t idx;		/* 0: off the PMU */
	uint64_t left;		/* events to the overflow */
	uint64_t since;		/* events since programmed */
	uint64_t clk;		/* ticks */
	uint64_t idle;		/* ticks spent off the PMU: running lags enabled */
	int user;		/* cap_user_rdpmc */
	uint64_t seed;
	long reschedules, offs, no_user, late_overflows;
} w;

static uint64_t wrnd(void)	/* the writer's own state: rnd()'s is not for threads */
{
	return splitmix64(&w.seed);
}

static uint32_t wlock;		/* the writer's copy of pg.lock */

static void lock_begin(void)
{
	ST(&pg.lock, ++wlock, RLX);
	WFENCE();
}

static void lock_end(void)
{
	ST(&pg.lock, ++wlock, REL);
}

/* The body of perf_event_update_userpage(), inside the lock. */
static void write_page(void)
{
	uint64_t t = w.clk * NS_PER_TICK;

	ST(&pg.index, w.idx, RLX);
	ST(&pg.offset, (int64_t)(w.idx ? w.count - w.prev : w.count), RLX);
	ST(&pg.pmc_width, (uint16_t)w.width, RLX);
	ST(&pg.capabilities, (w.user ? PMU_CAP_RDPMC : 0) | PMU_CAP_TIME, RLX);
	ST(&pg.time_enabled, t, RLX);
	ST(&pg.time_running, t - w.idle * NS_PER_TICK, RLX);
	ST(&pg.time_offset, -t, RLX);	/* time_offset + clk * mult >> shift: ns since this update */
}

/* The register's events since it was programmed, into the count. */
static void k_fold(void)
{
	uint64_t now;

	if (!w.idx)
		return;
	now = LD(&reg[w.idx], RLX) & mask_of(w.width);
	w.count += (now - w.prev) & mask_of(w.width);
	w.prev = now;
}

/* set_period(): close to the wrap point, so that reads see it wrap. */
static void k_program(uint32_t idx, unsigned width, uint64_t left)
{
	w.idx = idx;
	w.width = width;
	w.left = left;
	w.since = 0;
	w.prev = -left;
	ST(&reg[idx], w.prev & mask_of(width), REL);
}

/* What else the kernel does inside the lock (sched_clock, the arch's fields): time for a reader to overlap. */
static void k_work(void)
{
	int i;

	for (i = 0; i < 16; i++)
		__asm__ volatile("" : : "r"(wrnd()));
}

/* Folds, then puts the event on another register (or none), all inside the lock. */
static void reschedule(void)
{
	static const unsigned widths[] = { 32, 40, 48, 64 };
	uint64_t r = wrnd();

	lock_begin();
	k_fold();
	k_work();
	w.reschedules++;
	w.user = r % 32 != 0;
	w.no_user += !w.user;
	if (r % 32 == 1) {
		w.idx = 0;	/* off the PMU: its last register now counts something else */
		w.offs++;
	} else {
		unsigned width = widths[(r >> 16) % 4];
		uint64_t half = 1ull << (width - 1), left;

		switch ((r >> 24) % 4) {
		case 0: left = 1 + wrnd() % 4; break;
		case 1: left = 1 + wrnd() % 2000; break;
		case 2: left = half - wrnd() % 1000; break;	/* the kernel's counting start */
		default: left = half; break;			/* the register's sign bit set */
		}
		k_program(1 + (r >> 8) % (NREG - 1), width, left);
	}
	write_page();
	lock_end();
}

/* The event's register and the read(2) count advance together, as one "kernel" fact. */
static void count_events(uint64_t d)
{
	ST(&kseq, kseq + 1, RLX);
	WFENCE();
	w.since += d;
	ST(&reg[w.idx], (LD(&reg[w.idx], RLX) + d) & mask_of(w.width), REL);
	ST(&kcount, LD(&kcount, RLX) + d, RLX);
	ST(&kseq, kseq + 1, REL);
}

/* One step of hardware time: the clock, the event's register, someone else's register. */
static void tick(void)
{
	uint64_t r = wrnd(), d = 1 + r % 8;
	uint32_t other = 1 + (r >> 16) % (NREG - 1);

	ST(&clk, ++w.clk, REL);
	if (!w.idx) {
		w.idle++;
	} else if (w.since + d > w.left && (r >> 8) % 4 == 0) {
		/* The overflow interrupt, taken a little after the register wrapped. */
		w.late_overflows++;
		reschedule();
		return;
	} else {
		count_events(d);
	}
	if (other != w.idx)
		ST(&reg[other], wrnd(), REL);
}

static void *writer(void *arg)
{
	long n = 0;

	(void)arg;
	while (!LD(&stop, ACQ)) {
		tick();
		ST(&progress, n, RLX);
		if (wrnd() % 16 == 0)
			reschedule();
		n++;
	}
	/* Leave the event on a 48-bit register 3 events before its wrap, user access on... */
	lock_begin();
	k_fold();
	w.user = 1;
	k_program(5, 48, 3);
	write_page();
	lock_end();
	/* ...and count 100: the register wraps. */
	count_events(100);
	w.count += 100;
	printf("writer: %ld ticks, %ld reschedules (%ld off the PMU, %ld without user access, "
	       "%ld late overflows)\n", n, w.reschedules, w.offs, w.no_user, w.late_overflows);
	return NULL;
}

struct reader {
	pthread_t t;
	long user, fallback, errors;
	uint64_t last;
};

static void *reader(void *arg)
{
	struct reader *rd = arg;
	uint64_t last_running = 0, last_enabled = 0;
	long i;

	for (i = 0; i < reads_per_reader; i++) {
		struct pmu__page_value v = { 0, 0, 0 };

		/* Every few reads, let the writer move on: never a run of reads over a page at rest. */
		if (i % (reads_per_reader / 256 + 1) == 0) {
			long p = LD(&progress, RLX);

			while (LD(&progress, RLX) == p)
				sched_yield();
		}
		/* every third read is pmu.h's inline one, which refuses what needs times */
		enum pmu__read_mode mode = i % 3 == 1 ? PMU_READ_TIMES : PMU_READ_COUNT;
		uint64_t lo, hi, val;
		int r, fallback;

		lo = k_read();
		if (i % 3 == 2)
			r = pmu_inl_page_read(&pg, fake_rdpmc, PMU_INL_CAP | PMU_INL_TIMES, &v.count) ? PMU_PAGE_NO_INDEX : PMU_PAGE_OK;
		else
			r = pmu__read_page(&pg, mode, fake_rdpmc, fake_clock, &v);
		fallback = r == PMU_PAGE_NO_INDEX || r == PMU_PAGE_NO_RDPMC;
		val = fallback ? k_read() : v.count;
		hi = k_read();
		if (r == PMU_PAGE_OK) {
			rd->user++;
			if (mode == PMU_READ_TIMES) {
				/* enabled is the clock read in this snapshot, exactly; running lags it */
				if ((v.enabled != last_clk * NS_PER_TICK || v.running > v.enabled ||
				     v.running < last_running || v.enabled < last_enabled) && rd->errors++ < 5)
					fprintf(stderr, "read %ld: enabled %" PRIu64 " running %" PRIu64
						" at clock %" PRIu64 " (last running %" PRIu64 ")\n",
						i, v.enabled, v.running, last_clk, last_running);
				last_running = v.running;
				last_enabled = v.enabled;
			}
		} else if (fallback) {
			rd->fallback++;
		} else {
			if (rd->errors++ < 5)
				fprintf(stderr, "read %ld: status %d\n", i, r);
			continue;
		}
		if ((val < lo || val > hi || val < rd->last) && rd->errors++ < 5)
			fprintf(stderr, "read %ld (%s): %" PRIu64 ", kernel count before %" PRIu64 " after %"
				PRIu64 ", previous read %" PRIu64 "\n", i, r ? "fallback" : "user space",
				val, lo, hi, rd->last);
		rd->last = val;
	}
	rd->errors += bad_idx;
	return NULL;
}

int main(void)
{
	struct reader rd[NREADERS];
	pthread_t wt;
	struct pmu__page_value v = { 0, 0, 0 };
	long total = 0, fallback = 0;
	int i;

	/* PMU_STRESS_READS: make stress's long run */
	reads_per_reader = (getenv("PMU_STRESS_READS") ? atol(getenv("PMU_STRESS_READS")) : t_scale(10000000)) /
			   NREADERS + 1;
	w.seed = 0x5eed;
	w.user = 1;
	pg.cap_bit0_is_deprecated = 1;
	pg.time_mult = NS_PER_TICK << 20;
	pg.time_shift = 20;
	k_program(1, 32, 1000);
	lock_begin();
	write_page();
	lock_end();

	CHECK(pthread_create(&wt, NULL, writer, NULL) == 0);
	memset(rd, 0, sizeof(rd));
	for (i = 0; i < NREADERS; i++)
		CHECK(pthread_create(&rd[i].t, NULL, reader, &rd[i]) == 0);
	for (i = 0; i < NREADERS; i++) {
		pthread_join(rd[i].t, NULL);
		printf("reader %d: %ld reads from user space, %ld through the fallback, %ld errors, last %" PRIu64 "\n",
		       i, rd[i].user, rd[i].fallback, rd[i].errors, rd[i].last);
		CHECK_EQ(rd[i].errors, 0);
		CHECK(rd[i].user > reads_per_reader / 10);	/* the user-space path was exercised */
		total += rd[i].user + rd[i].fallback;
		fallback += rd[i].fallback;
	}
	CHECK(fallback > 0);	/* and so was the fallback */
	ST(&stop, 1, REL);
	pthread_join(wt, NULL);
	CHECK(total >= (reads_per_reader - 1) * NREADERS);
	printf("%ld reads in all\n", total);

	/* Quiet now: the page gives the kernel's count exactly, through a wrapped register. */
	CHECK_EQ(pmu__read_page(&pg, 1, fake_rdpmc, fake_clock, &v), PMU_PAGE_OK);
	CHECK_EQ(v.count, w.count);
	CHECK_EQ(v.count, k_read());
	CHECK_EQ(v.enabled, w.clk * NS_PER_TICK);
	CHECK_EQ(v.running, (w.clk - w.idle) * NS_PER_TICK);
	printf("final count %" PRIu64 " (kernel %" PRIu64 ")\n", v.count, k_read());
	T_DONE();
}
