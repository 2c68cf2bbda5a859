/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of the read path against references that share no code with
 * it: pmu/inline.h's pmu_inl_mul_shr and readpage.h's pmu__scale against
 * multiplication and long division done in 32-bit limbs (no __int128), the
 * sign extension of the page reader (pmu_inl_width_shift and
 * pmu_inl_sign_extend) against a branch on the sign bit, and its clock
 * conversion (pmu_inl_ns_between, a product and a shift below 2^32 ticks,
 * 128 bits above) against the same reference.
 * Random inputs biased towards edge values.
 */
#include <stdbool.h>

#include "test.h"
#include "counters/readpage.h"	/* and through pmu.h, pmu/inline.h */
#include "sim_ref.h"

/* Wrong on purpose: what the references must catch. */
static uint64_t wrong_mul_64bit(uint64_t a, uint32_t mul, unsigned shift)
{
	return (a * mul) >> (shift & 63);	/* product truncated to 64 bits */
}

static uint64_t wrong_mul_doc(uint64_t a, uint32_t mul, unsigned shift)
{
	/* perf_event.h's quot/rem form: rem * mul overflows once shift > 32 */
	uint64_t quot = a >> shift, rem = a & ((1ull << shift) - 1);

	return quot * mul + ((rem * mul) >> shift);
}

static uint64_t wrong_scale_64bit(uint64_t c, uint64_t e, uint64_t r)
{
	return r ? c * e / r : 0;
}

static uint64_t wrong_sign_extend_mask(uint64_t v, unsigned width)
{
	return width == 64 ? v : v & ((1ull << width) - 1);	/* masks, never extends */
}

static void test_mul(long n)
{
	static const uint32_t muls[] = { 0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 33554432, 0xfffffffe };
	long i, bad = 0, wrong64 = 0, wrongdoc = 0;
	unsigned shift;

	/* Exhaustive over the edges: every shift the 128-bit product can have. */
	for (shift = 0; shift < 128; shift++) {
		static const uint64_t as[] = { 0, 1, 2, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
					       0x8000000000000000ull, UINT64_MAX, UINT64_MAX - 1 };
		unsigned x, y;

		for (x = 0; x < sizeof(as) / sizeof(as[0]); x++)
			for (y = 0; y < sizeof(muls) / sizeof(muls[0]); y++)
				CHECK_MSG(pmu_inl_mul_shr(as[x], muls[y], shift) ==
					  ref_mul_shr(as[x], muls[y], shift),
					  "a=0x%" PRIx64 " mul=0x%x shift=%u", as[x], muls[y], shift);
	}
	/* Random: shifts a kernel writes (0..32) most of the time, any up to 127 otherwise. */
	for (i = 0; i < n; i++) {
		uint64_t a = rnd_edge(), r = rnd();
		uint32_t mul = r & 0x10 ? muls[(r >> 8) % 8] : (uint32_t)(r >> 32);

		shift = r & 1 ? (r >> 16) % 33 : (r >> 16) % 128;
		if (pmu_inl_mul_shr(a, mul, shift) != ref_mul_shr(a, mul, shift) && bad++ < 5)
			fprintf(stderr, "mul_u64_u32_shr(0x%" PRIx64 ", 0x%x, %u) = 0x%" PRIx64
				", reference 0x%" PRIx64 "\n", a, mul, shift,
				pmu_inl_mul_shr(a, mul, shift), ref_mul_shr(a, mul, shift));
		if (shift < 64)
			wrong64 += wrong_mul_64bit(a, mul, shift) != ref_mul_shr(a, mul, shift);
		if (shift < 64)
			wrongdoc += wrong_mul_doc(a, mul, shift) != ref_mul_shr(a, mul, shift);
	}
	CHECK_EQ(bad, 0);
	/* The reference is not blind: it rejects two known-wrong forms. */
	CHECK(wrong64 > n / 100);
	CHECK(wrongdoc > 0);
	/* A shift of 33 with a 33-bit remainder is where the documented form breaks. */
	CHECK(wrong_mul_doc(0x1ffffffffull, 0xffffffff, 33) != ref_mul_shr(0x1ffffffffull, 0xffffffff, 33));
	/* Known values: 16 ns per tick (QEMU's 62.5 MHz clock), a 2^95 product. */
	CHECK_EQ(ref_mul_shr(1000, 33554432, 21), 16000);
	CHECK_EQ(ref_mul_shr(UINT64_MAX, 0xffffffff, 64), 0xfffffffeull);
	CHECK_EQ(ref_mul_shr(UINT64_MAX, 0xffffffff, 32), 0xfffffffeffffffffull);
	printf("mul_u64_u32_shr: %ld random inputs, reference rejected the 64-bit form %ld times, "
	       "the quot/rem form %ld times\n", n, wrong64, wrongdoc);
}

static void test_scale(long n)
{
	long i, bad = 0, wrong = 0;

	/* Never ran: 0, and no division (a division by zero would kill the test). */
	CHECK_EQ(pmu__scale(12345, 1000, 0), 0);
	CHECK_EQ(pmu__scale(UINT64_MAX, UINT64_MAX, 0), 0);
	/* Not multiplexed: the count as is, whatever the times (also 0/0 from a fresh page). */
	CHECK_EQ(pmu__scale(777, 0, 0), 777);
	CHECK_EQ(pmu__scale(777, 5000, 5000), 777);
	CHECK_EQ(pmu__scale(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
	/* Halved running time doubles; saturates instead of wrapping. */
	CHECK_EQ(pmu__scale(1000, 2000, 1000), 2000);
	CHECK_EQ(pmu__scale(1ull << 63, 4, 1), UINT64_MAX);
	CHECK_EQ(pmu__scale(3, 2, 3), 2);	/* rounds down */
	/* The 64-bit product would overflow here; the 128-bit one does not. */
	CHECK_EQ(pmu__scale(1ull << 40, 3ull << 40, 1ull << 41), 3ull << 39);
	CHECK_EQ(ref_scale(1ull << 40, 3ull << 40, 1ull << 41), 3ull << 39);

	for (i = 0; i < n; i++) {
		uint64_t c = rnd_edge(), e = rnd_edge(), r = rnd_edge(), got, want;

		switch (rnd() & 3) {
		case 0:
			r = e ? e - rnd() % (e < 1000 ? e : 1000) : 0;	/* running <= enabled, as in the kernel */
			break;
		case 1:
			r = e >> (rnd() % 8);
			break;
		}
		got = pmu__scale(c, e, r);
		want = e == r ? c : ref_scale(c, e, r);
		if (got != want && bad++ < 5)
			fprintf(stderr, "scale(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ") = 0x%" PRIx64
				", reference 0x%" PRIx64 "\n", c, e, r, got, want);
		wrong += e != r && wrong_scale_64bit(c, e, r) != want;
	}
	CHECK_EQ(bad, 0);
	CHECK(wrong > n / 100);
	printf("scale: %ld random inputs, reference rejected the 64-bit form %ld times\n", n, wrong);
}

/* What both readers compute from a page's pmc_width w and counter value v. */
static uint64_t sign_extend(uint64_t v, unsigned w)
{
	return pmu_inl_sign_extend(v, pmu_inl_width_shift((uint16_t)w));
}

static void test_sign_extend(long n)
{
	long i, bad = 0, wrong = 0;
	unsigned w;

	/* The one pmc_width rule: 1..64 is a width; 0 (none set) and above 64 leave the page to read(2). */
	for (w = 0; w <= 0xffff; w++)
		CHECK_MSG((pmu_inl_width_shift((uint16_t)w) < 64) == (w >= 1 && w <= 64), "width %u", w);
	CHECK_EQ(pmu_inl_width_shift(64), 0);
	CHECK_EQ(pmu_inl_width_shift(1), 63);
	for (w = 1; w <= 64; w++) {
		uint64_t top = 1ull << (w - 1);

		CHECK_EQ(sign_extend(top, w), -top);		/* most negative */
		CHECK_EQ(sign_extend(top - 1, w), top - 1);	/* most positive */
		CHECK_EQ(sign_extend(UINT64_MAX, w), UINT64_MAX);	/* -1 */
		CHECK_EQ(sign_extend(0, w), 0);
		/* Bits above the width are ignored, set or not. */
		if (w < 64)
			CHECK_EQ(sign_extend(~0ull << w | 5, w), ref_sign_extend(5, w));
	}
	CHECK_EQ(sign_extend(0xffffffffull, 32), UINT64_MAX);
	CHECK_EQ(sign_extend(0x80000001ull, 32), 0xffffffff80000001ull);
	CHECK_EQ(sign_extend(0xffffffffffffull, 48), UINT64_MAX);
	CHECK_EQ(sign_extend(0x7fffffffffull, 40), 0x7fffffffffull);
	for (i = 0; i < n; i++) {
		uint64_t v = rnd_edge();

		w = 1 + rnd() % 64;
		if (sign_extend(v, w) != ref_sign_extend(v, w) && bad++ < 5)
			fprintf(stderr, "sign_extend(0x%" PRIx64 ", %u) = 0x%" PRIx64 ", reference 0x%" PRIx64 "\n",
				v, w, sign_extend(v, w), ref_sign_extend(v, w));
		wrong += wrong_sign_extend_mask(v, w) != ref_sign_extend(v, w);
	}
	CHECK_EQ(bad, 0);
	CHECK(wrong > n / 10);
}

/* The ns of d clock ticks by a page's time_mult and time_shift (0..32, as the kernel writes them), with time_mask when short. */
static void test_page_ns(long n)
{
	struct perf_event_mmap_page pc = { 0 };
	long i, bad = 0, fast = 0;

	for (i = 0; i < n; i++) {
		uint64_t r = rnd(), c0 = rnd_edge(), d = r & 1 ? rnd_edge() : rnd() >> (32 + (r >> 8) % 32);
		bool short_ = r & 2;
		uint64_t caps = PMU_CAP_TIME | (short_ ? PMU_CAP_TIME_SHORT : 0);
		uint64_t want, got;

		pc.time_mult = r & 4 ? (uint32_t)(r >> 32) : 33554432;
		pc.time_shift = (uint16_t)((r >> 16) % 33);
		pc.time_mask = short_ ? mask_of(56) : 0;
		want = ref_mul_shr(short_ ? d & mask_of(56) : d, pc.time_mult, pc.time_shift);
		got = pmu_inl_ns_between(&pc, caps, c0, c0 + d);
		fast += !((short_ ? d & mask_of(56) : d) >> 32);
		if (got != want && bad++ < 5)
			fprintf(stderr, "ns_between(d=0x%" PRIx64 ", mult=0x%x, shift=%u%s) = 0x%" PRIx64
				", reference 0x%" PRIx64 "\n", d, pc.time_mult, pc.time_shift,
				short_ ? ", 56-bit" : "", got, want);
	}
	CHECK_EQ(bad, 0);
	CHECK(fast > n / 10 && fast < n - n / 10);	/* both forms ran */
	/* Known value: QEMU's 62.5 MHz clock, 16 ns per tick, on both sides of 2^32 ticks. */
	pc.time_mult = 33554432;
	pc.time_shift = 21;
	CHECK_EQ(pmu_inl_ns_between(&pc, PMU_CAP_TIME, 5, 1005), 16000);
	CHECK_EQ(pmu_inl_ns_between(&pc, PMU_CAP_TIME, 0, 1ull << 33), 16ull << 33);
	printf("ns_between: %ld random inputs, %ld below 2^32 ticks\n", n, fast);
}

int main(void)
{
	printf("seed 0x%" PRIx64 "\n", rng_state);
	test_mul(t_scale(4000000));
	test_scale(t_scale(500000));
	test_sign_extend(t_scale(1000000));
	test_page_ns(t_scale(1000000));
	T_DONE();
}
