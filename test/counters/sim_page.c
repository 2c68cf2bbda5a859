/* SPDX-License-Identifier: MIT */
/*
 * pmu__read_page, and pmu.h's inline read beside it, over a
 * perf_event_mmap_page in ordinary memory, written the
 * way the kernel writes it, with a fake counter register and a fake clock.
 * Counters are programmed as arm_pmuv3 and x86 set_period do:
 *   prev_count = (u64)-left, register = prev_count & mask(width),
 *   offset = count - prev_count,
 * and user space must compute offset + sign_extend(register, width).
 * A hook in the fake counter read plays the kernel updating the page in the
 * middle of a read (an interrupt on the reader's CPU).
 */
#include <stdbool.h>
#include "test.h"
#include "pmu.h"	/* pmu_inl_page_read(), the inline read */
#include "counters/readpage.h"
#include "sim_ref.h"

static struct perf_event_mmap_page pg __attribute__((aligned(4096)));
static uint64_t hw;			/* the counter register */
static uint64_t hw_junk;		/* bits the register returns above its width */
static uint64_t clk;			/* the clock register */
static uint32_t asked[16];		/* which index each counter read was for */
static int n_rdpmc, n_clock;
static void (*hook)(int call);		/* runs inside the n-th counter read */

static uint64_t fake_rdpmc(uint32_t idx)
{
	if (n_rdpmc < 16)
		asked[n_rdpmc] = idx;
	if (hook)
		hook(n_rdpmc);
	n_rdpmc++;
	return hw | hw_junk;
}

static uint64_t fake_clock(void)
{
	n_clock++;
	return clk;
}

/* The kernel's model of one event: its total and the value the register was programmed with. */
static struct {
	uint64_t count;		/* event->count, as of the last fold */
	uint64_t prev;		/* hwc->prev_count */
	unsigned width;
} ev;

/* perf_event_update_userpage(): the whole page under the seqlock. */
static void k_update_page(uint32_t idx)
{
	pg.lock++;
	pg.index = idx;
	pg.offset = idx ? ev.count - ev.prev : ev.count;
	pg.pmc_width = ev.width;
	pg.lock++;
}

/* Reads the register into event->count (x86_perf_event_update / armpmu_event_update). */
static void k_fold(void)
{
	uint64_t now = hw & mask_of(ev.width);

	ev.count += (now - ev.prev) & mask_of(ev.width);
	ev.prev = now;
}

/* set_period with left counts to the overflow interrupt, then the page. */
static void k_program(unsigned width, uint64_t left, uint32_t idx)
{
	ev.width = width;
	ev.prev = -left;
	hw = ev.prev & mask_of(width);
	k_update_page(idx);
}

static void reset(void)
{
	memset(&pg, 0, sizeof(pg));
	pg.version = 0;
	pg.compat_version = 0;
	pg.size = sizeof(pg);
	pg.cap_bit0_is_deprecated = 1;
	pg.cap_user_rdpmc = 1;
	hw = hw_junk = clk = 0;
	n_rdpmc = n_clock = 0;
	memset(asked, 0, sizeof(asked));
	hook = NULL;
	memset(&ev, 0, sizeof(ev));
}

static const struct pmu__page_value poison = { 0xdeadbeefdeadbeefull, 0xdeadbeefull, 0xbeefull };

static int inline_disagreed;

/*
 * The inline read of pmu.h over the same page, beside every full read
 * without a hook: it answers exactly where the full read answers without
 * scaling, with the same count, and refuses where the full read refuses
 * (a pmc_width of 0 or above 64 too: one rule for both readers).
 */
static void inline_agrees(enum pmu__read_mode mode, int r, const struct pmu__page_value *v)
{
	uint32_t saved[16];
	int n = n_rdpmc, ir;
	uint64_t x = 0x5a5a5a5a5a5a5a5aull;
	bool refused = r == PMU_PAGE_NO_RDPMC || r == PMU_PAGE_NO_INDEX || r == PMU_PAGE_BAD_WIDTH;
	bool plain = mode == PMU_READ_COUNT && r == PMU_PAGE_OK && pg.time_enabled == pg.time_running;

	memcpy(saved, asked, sizeof(saved));
	ir = pmu_inl_page_read(&pg, fake_rdpmc, PMU_INL_CAP | PMU_INL_TIMES, &x);
	n_rdpmc = n;
	memcpy(asked, saved, sizeof(saved));
	if ((refused && ir != 1) || (plain && (ir != 0 || x != v->count)) ||
	    (pg.time_enabled != pg.time_running && ir != 1)) {
		fprintf(stderr, "inline read: %d (0x%llx) where the full read gave %d (0x%llx)\n", ir,
			(unsigned long long)x, r, (unsigned long long)v->count);
		inline_disagreed++;
	}
}

static int read_page(enum pmu__read_mode mode, struct pmu__page_value *v)
{
	int r;

	*v = poison;
	r = pmu__read_page(&pg, mode, fake_rdpmc, fake_clock, v);
	if (!hook)
		inline_agrees(mode, r, v);
	return r;
}

static int untouched(const struct pmu__page_value *v)
{
	return !memcmp(v, &poison, sizeof(*v));
}

/* The capability masks are the kernel ABI's bit numbers. */
static void test_cap_bits(void)
{
	CHECK_EQ(PMU_CAP_RDPMC, 1ull << 2);
	CHECK_EQ(PMU_CAP_TIME, 1ull << 3);
	CHECK_EQ(PMU_CAP_TIME_SHORT, 1ull << 5);
}

/* One programmed counter, advanced by delta events, read back. */
static void check_counter(unsigned width, uint64_t count0, uint64_t left, uint64_t delta, uint32_t idx,
			  uint64_t junk, long *wrong_unsigned)
{
	struct pmu__page_value v;
	int r;

	reset();
	ev.count = count0;
	k_program(width, left, idx);
	hw = (hw + delta) & mask_of(width);	/* the hardware counts, wrapping at its width */
	hw_junk = junk & ~mask_of(width);
	r = read_page(PMU_READ_COUNT, &v);
	CHECK_MSG(r == PMU_PAGE_OK && v.count == count0 + delta,
		  "width %u count0 0x%" PRIx64 " left 0x%" PRIx64 " delta 0x%" PRIx64 " junk 0x%" PRIx64
		  ": status %d count 0x%" PRIx64 ", want 0x%" PRIx64,
		  width, count0, left, delta, junk, r, v.count, count0 + delta);
	CHECK_EQ(n_rdpmc, 1);
	CHECK_EQ(asked[0], idx);
	CHECK_EQ(n_clock, 0);	/* no times wanted, not multiplexed: no clock read */
	/* An unsigned mask in place of the sign extension (a known peer defect) gets this wrong. */
	if (width < 64 && (uint64_t)pg.offset + (hw & mask_of(width)) != count0 + delta)
		(*wrong_unsigned)++;
}

static void test_widths(void)
{
	static const unsigned widths[] = { 32, 40, 48, 64 };
	static const uint64_t counts[] = { 0, 123456789, 1ull << 40, UINT64_MAX - 5 };
	static const uint32_t idxs[] = { 1, 2, 7, 31, 32, 33, (1u << 30) + 1, (1u << 30) + 3 };
	long wrong = 0, cases = 0, i;
	unsigned w, c, l, d;

	for (w = 0; w < 4; w++) {
		uint64_t half = 1ull << (widths[w] - 1);
		/* left: the kernel's cap is max_period / 2 (arm) or max_period (x86): up to half the range */
		uint64_t lefts[] = { 1, 2, 1000, half - 1, half, half / 3 };

		for (l = 0; l < 6; l++) {
			uint64_t left = lefts[l];
			/* Correct for any delta that keeps -left + delta a valid signed width-bit value. */
			uint64_t deltas[] = { 0, 1, left - 1, left, left + 1, left + half - 1, left + half / 2 };

			for (d = 0; d < 7; d++) {
				for (c = 0; c < 4; c++) {
					uint32_t idx = idxs[cases % 8];

					check_counter(widths[w], counts[c], left, deltas[d], idx, 0, &wrong);
					/* Some hardware returns bits above the width set: ignored. */
					check_counter(widths[w], counts[c], left, deltas[d], idx, ~0ull, &wrong);
					cases++;
				}
			}
		}
	}
	/* Random counts inside the valid range. */
	for (i = 0; i < t_scale(200000); i++) {
		unsigned width = widths[rnd() % 4];
		uint64_t half = 1ull << (width - 1);
		uint64_t left = 1 + rnd() % half;
		uint64_t delta = rnd() % (left + half);
		uint64_t count0 = rnd_edge(), junk = rnd();
		uint32_t idx = 1 + rnd() % 32;

		check_counter(width, count0, left, delta, idx, junk, &wrong);
		cases++;
	}
	CHECK(wrong > cases / 10);
	printf("widths: %ld counter states read back; an unsigned mask would have been wrong in %ld\n",
	       cases, wrong);

	/* The kernel's counting start on arm64 32-bit counters: 2^31 - 1 events to the interrupt. */
	{
		struct pmu__page_value v;

		reset();
		ev.count = 0;
		k_program(32, (1ull << 31) - 1, 1);
		CHECK_EQ(hw, 0x80000001ull);
		hw = 0xffffffff;	/* about to wrap: looks negative */
		CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
		CHECK_EQ(v.count, (1ull << 31) - 2);
		hw = 5;		/* wrapped, interrupt not handled yet */
		CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
		CHECK_EQ(v.count, (1ull << 31) - 1 + 5);
		k_fold();	/* the overflow interrupt: fold and program again */
		k_program(32, (1ull << 31) - 1, 1);
		hw += 10;
		CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
		CHECK_EQ(v.count, (1ull << 31) - 1 + 5 + 10);
	}
}

/* index 0: never a value built from offset, and no counter read. */
static void test_index0(void)
{
	struct pmu__page_value v;

	reset();
	ev.count = 1000;
	ev.width = 64;
	k_update_page(0);	/* offset = the count as of the update */
	hw = 77;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_NO_INDEX);
	CHECK(untouched(&v));
	CHECK_EQ(n_rdpmc, 0);
	CHECK_EQ(read_page(PMU_READ_TIMES, &v), PMU_PAGE_NO_INDEX);
	CHECK(untouched(&v));

	/* arm64 with perf_user_access 0: cap_user_rdpmc 1, index 0, counting. */
	reset();
	pg.cap_user_time = 1;
	pg.offset = 1000;
	pg.pmc_width = 32;
	pg.time_enabled = pg.time_running = 5;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_NO_INDEX);
	CHECK(untouched(&v));
}

static void hook_index0(int call)
{
	if (call)
		return;
	k_fold();
	k_update_page(0);	/* scheduled out between the reader's loads */
}

static void hook_cap0(int call)
{
	if (call)
		return;
	pg.lock++;
	pg.cap_user_rdpmc = 0;
	pg.lock++;
}

static void hook_width0(int call)
{
	if (call)
		return;
	pg.lock++;
	pg.pmc_width = 0;
	pg.lock++;
}

static void hook_time0(int call)
{
	if (call)
		return;
	pg.lock++;
	pg.cap_user_time = 0;
	pg.lock++;
}

/* The event moves to another counter, of another width, while the reader is between loads. */
static void hook_move(int call)
{
	if (call)
		return;
	k_fold();
	k_program(32, 100, 32);
	hw += 7;
}

static void hook_many(int call)
{
	if (call < 1000) {
		pg.lock += 2;
		hw++;
		ev.count++;	/* truth moves with the register */
	}
}

/* Every capability and the index are taken from the same snapshot as the count. */
static void test_recheck(void)
{
	struct pmu__page_value v;

	reset();
	ev.count = 5000;
	k_program(48, 1000, 3);
	hw += 10;
	hook = hook_index0;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_NO_INDEX);
	CHECK(untouched(&v));
	CHECK_EQ(n_rdpmc, 1);
	CHECK_EQ(ev.count, 5010);

	reset();
	k_program(48, 1000, 3);
	hook = hook_cap0;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_NO_RDPMC);
	CHECK(untouched(&v));

	reset();
	k_program(48, 1000, 3);
	hook = hook_width0;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_BAD_WIDTH);
	CHECK(untouched(&v));

	reset();
	k_program(48, 1000, 3);
	pg.cap_user_time = 1;
	pg.time_mult = 1;
	hook = hook_time0;
	CHECK_EQ(read_page(PMU_READ_TIMES, &v), PMU_PAGE_NO_TIME);
	CHECK(untouched(&v));

	/* Moved from a 64-bit counter at index 2 to a 32-bit one at index 32: the new snapshot only. */
	reset();
	ev.count = 1ull << 35;
	k_program(64, 1ull << 62, 2);
	hw += 1000;
	hook = hook_move;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
	CHECK_EQ(v.count, (1ull << 35) + 1000 + 7);
	CHECK_EQ(n_rdpmc, 2);
	CHECK_EQ(asked[0], 2);
	CHECK_EQ(asked[1], 32);

	/* A reader that keeps losing the race still returns the last consistent value. */
	reset();
	ev.count = 0;
	k_program(40, 1ull << 20, 5);
	hook = hook_many;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
	CHECK_EQ(n_rdpmc, 1001);
	CHECK_EQ(v.count, 1000);
}

static void test_caps_and_width(void)
{
	static const unsigned bad[] = { 0, 65, 128, 255, 0xffff };
	struct pmu__page_value v;
	unsigned i;

	reset();
	k_program(48, 10, 1);
	pg.cap_user_rdpmc = 0;	/* x86 with rdpmc off, or a software event */
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_NO_RDPMC);
	CHECK(untouched(&v));
	CHECK_EQ(n_rdpmc, 0);
	pg.capabilities = 0;
	CHECK_EQ(read_page(PMU_READ_TIMES, &v), PMU_PAGE_NO_RDPMC);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		reset();
		k_program(48, 10, 1);
		pg.pmc_width = bad[i];
		CHECK_MSG(read_page(PMU_READ_COUNT, &v) == PMU_PAGE_BAD_WIDTH, "width %u", bad[i]);
		CHECK(untouched(&v));
		CHECK_EQ(n_rdpmc, 0);
	}
	/* The extremes that are valid. */
	reset();
	ev.count = 10;
	k_program(1, 1, 1);
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
	CHECK_EQ(v.count, 10);
	reset();
	ev.count = 10;
	k_program(64, 1ull << 63, 1);
	hw += (1ull << 63) + 5;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
	CHECK_EQ(v.count, 10 + (1ull << 63) + 5);
}

/*
 * x86's clock: sched_clock(tsc) = off + mul_u64_u32_shr(tsc, mult, shift);
 * the page holds time_offset = off - now, no time_cycles/time_mask.
 */
static void test_time_x86(void)
{
	/* 2.5 GHz TSC after ten days: the product needs more than 64 bits. */
	const uint32_t mult = 1717986918;	/* 0.4 * 2^32 */
	const unsigned shift = 32;
	const uint64_t off = 123456789, tsc0 = 2160000000000000ull;
	uint64_t now = off + ref_mul_shr(tsc0, mult, shift), want;
	struct pmu__page_value v;

	reset();
	ev.count = 42;
	k_program(48, 1000, 1);
	pg.cap_user_time = 1;
	pg.cap_user_time_zero = 1;
	pg.time_mult = mult;
	pg.time_shift = shift;
	pg.time_offset = off - now;
	pg.time_enabled = 5000000;
	pg.time_running = 5000000;
	clk = tsc0 + 2500000000ull;	/* one second later */

	/* Not multiplexed, times not wanted: the clock is not read, times as in the page. */
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
	CHECK_EQ(n_clock, 0);
	CHECK_EQ(v.count, 42);
	CHECK_EQ(v.enabled, 5000000);
	CHECK_EQ(v.running, 5000000);

	/* Wanted: brought up to now, one second on both. */
	CHECK_EQ(read_page(PMU_READ_TIMES, &v), PMU_PAGE_OK);
	CHECK_EQ(n_clock, 1);
	want = 5000000 + off + ref_mul_shr(clk, mult, shift) - now;
	CHECK_EQ(v.enabled, want);
	CHECK_EQ(v.running, want);
	CHECK(v.enabled - 5000000 >= 999999999 && v.enabled - 5000000 <= 1000000001);
	/* A 64-bit product would be far off here. */
	CHECK((uint64_t)(pg.time_offset + ((clk * mult) >> shift)) != want - 5000000);

	/* The inline read never reads a clock. */
	n_clock = 0;
	CHECK_EQ(pmu_inl_page_read(&pg, fake_rdpmc, PMU_INL_CAP | PMU_INL_TIMES, &v.count), 0);
	CHECK_EQ(v.count, 42);
	CHECK_EQ(n_clock, 0);

	/* Multiplexed: brought up to now even when not asked for... */
	pg.lock += 2;
	pg.time_running = 1000000;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
	CHECK_EQ(v.enabled, want);
	CHECK_EQ(v.running, want - 4000000);
	/* ...except inline, which says so and leaves the rest to the library. */
	n_clock = 0;
	v = poison;
	CHECK_EQ(pmu_inl_page_read(&pg, fake_rdpmc, PMU_INL_CAP | PMU_INL_TIMES, &v.count), 1);
	CHECK(untouched(&v));
	CHECK_EQ(n_clock, 0);

	/* Never ran until now: running 0 in the page, index set: running is the time since. */
	pg.lock += 2;
	pg.time_running = 0;
	CHECK_EQ(read_page(PMU_READ_TIMES, &v), PMU_PAGE_OK);
	CHECK_EQ(v.running, want - 5000000);

	/* Times needed but not available: the caller must fall back. */
	pg.lock += 2;
	pg.cap_user_time = 0;
	CHECK_EQ(read_page(PMU_READ_TIMES, &v), PMU_PAGE_NO_TIME);
	CHECK(untouched(&v));
	pg.time_running = 1000000;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_NO_TIME);
	CHECK(untouched(&v));
	pg.time_running = pg.time_enabled;
	CHECK_EQ(read_page(PMU_READ_COUNT, &v), PMU_PAGE_OK);
}

/*
 * arm64's clock: a counter narrower than 64 bits behind sched_clock, as
 * arch_perf_update_userpage() publishes it (cap_user_time_short):
 *   sched_clock(c) = epoch_ns + mul((c - epoch_cyc) & mask)
 *   time_zero = epoch_ns - mul(epoch_cyc), time_offset = time_zero - now,
 *   time_cycles = epoch_cyc, time_mask = mask.
 */
static uint64_t sched_clock(uint64_t c, uint64_t epoch_ns, uint64_t epoch_cyc, uint64_t mask,
			    uint32_t mult, unsigned shift)
{
	return epoch_ns + ref_mul_shr((c - epoch_cyc) & mask, mult, shift);
}

static void check_time_short(unsigned bits, uint64_t epoch_cyc, uint64_t elapsed_upd, uint64_t elapsed_read,
			     uint32_t mult, unsigned shift, long *wrong_nomask)
{
	const uint64_t mask = mask_of(bits), epoch_ns = 987654321000ull;
	uint64_t upd = (epoch_cyc + elapsed_upd) & mask, rd = (epoch_cyc + elapsed_read) & mask;
	uint64_t now = sched_clock(upd, epoch_ns, epoch_cyc, mask, mult, shift);
	uint64_t truth = sched_clock(rd, epoch_ns, epoch_cyc, mask, mult, shift) - now;
	uint64_t formula, cyc;
	struct pmu__page_value v;

	reset();
	k_program(64, 1ull << 40, 32);
	pg.cap_user_time = pg.cap_user_time_zero = pg.cap_user_time_short = 1;
	pg.time_mult = mult;
	pg.time_shift = shift;
	pg.time_zero = epoch_ns - ref_mul_shr(epoch_cyc, mult, shift);
	pg.time_offset = pg.time_zero - now;
	pg.time_cycles = epoch_cyc;
	pg.time_mask = mask;
	pg.time_enabled = 1000;
	pg.time_running = 1000;
	clk = rd;
	CHECK_EQ(read_page(PMU_READ_TIMES, &v), PMU_PAGE_OK);
	CHECK_EQ(n_clock, 1);
	/* Exactly the documented formula... */
	cyc = epoch_cyc + ((rd - epoch_cyc) & mask);
	formula = pg.time_offset + ref_mul_shr(cyc, mult, shift);
	CHECK_MSG(v.enabled == 1000 + formula && v.running == 1000 + formula,
		  "bits %u epoch 0x%" PRIx64 " read at 0x%" PRIx64 ": enabled %" PRIu64 " want %" PRIu64,
		  bits, epoch_cyc, rd, v.enabled, 1000 + formula);
	/* ...which is the kernel's clock within the rounding of one split product. */
	CHECK_MSG(formula - truth <= 1, "bits %u: %" PRIu64 " ns, kernel clock says %" PRIu64,
		  bits, formula, truth);
	/* Ignoring time_mask would be wrong whenever the counter wrapped. */
	if ((uint64_t)(pg.time_offset + ref_mul_shr(rd, mult, shift)) - truth > 1)
		(*wrong_nomask)++;
}

static void test_time_short(void)
{
	long wrong = 0, n = 0, i;
	unsigned b;

	/* QEMU's 62.5 MHz counter: 16 ns a tick (mult 2^25, shift 21), 56-bit clock wrapping between update and read. */
	for (b = 0; b < 3; b++) {
		static const unsigned bits[] = { 56, 32, 24 };
		uint64_t top = mask_of(bits[b]);

		check_time_short(bits[b], top - 100, 10, 150, 33554432, 21, &wrong);	/* wraps after the update */
		check_time_short(bits[b], top - 100, 120, 150, 33554432, 21, &wrong);	/* wrapped at the update already */
		check_time_short(bits[b], 5, 10, 150, 33554432, 21, &wrong);		/* no wrap */
		check_time_short(bits[b], top, 0, top, 33554432, 21, &wrong);		/* a whole lap */
		n += 4;
	}
	for (i = 0; i < t_scale(100000); i++) {
		unsigned bits = 16 + rnd() % 48;
		uint64_t mask = mask_of(bits), a = rnd() & mask, b1 = rnd() & (mask >> 1);
		uint64_t b2 = b1 + (rnd() & (mask >> 1));
		unsigned shift = rnd() % 32;
		uint32_t mult = (uint32_t)rnd() | 1u << 31;

		check_time_short(bits, a, b1, b2, mult, shift, &wrong);
		n++;
	}
	CHECK(wrong > n / 4);
	printf("time_short: %ld clock states; ignoring time_mask would have been wrong in %ld\n", n, wrong);
}

int main(void)
{
	test_cap_bits();
	test_widths();
	test_index0();
	test_recheck();
	test_caps_and_width();
	test_time_x86();
	test_time_short();
	CHECK_MSG(inline_disagreed == 0, "the inline read disagreed with the full read %d times", inline_disagreed);
	T_DONE();
}
