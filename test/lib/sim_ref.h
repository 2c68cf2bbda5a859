/* SPDX-License-Identifier: MIT */
/*
 * Independent references for the simulation tier: a seeded generator biased
 * towards edge values, and 128-bit multiplication, shifting and division done
 * in 32-bit limbs (no __int128), so that they share no code with readpage.h.
 */
#ifndef PMU_SIM_REF_H
#define PMU_SIM_REF_H

#include <stdint.h>
#include <string.h>

static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* The single-threaded tests' generator; a thread keeps its own state for splitmix64(). */
static inline uint64_t rnd(void)
{
	return splitmix64(&rng_state);
}

/* The low width bits (1 <= width <= 64). */
static inline uint64_t mask_of(unsigned width)
{
	return width >= 64 ? UINT64_MAX : (1ull << width) - 1;
}

/* A 64-bit value, often an edge: 0, 1, powers of two and their neighbours, all ones, small. */
static inline uint64_t rnd_edge(void)
{
	uint64_t r = rnd(), p;

	switch (r & 7) {
	case 0:
		p = 1ull << ((r >> 8) & 63);
		return p + ((r >> 16) % 3) - 1;		/* 2^k - 1, 2^k, 2^k + 1 */
	case 1:
		return (r >> 8) & 3 ? UINT64_MAX - ((r >> 16) & 3) : (r >> 16) & 3;
	case 2:
		return rnd() >> ((r >> 8) & 63);	/* any magnitude */
	default:
		return rnd();
	}
}

/* a * b as four 32-bit limbs, least significant first, with 32x32->64 products only. */
static inline void mul_limbs(uint64_t a, uint64_t b, uint32_t r[4])
{
	uint32_t x[2] = { (uint32_t)a, (uint32_t)(a >> 32) };
	uint32_t y[2] = { (uint32_t)b, (uint32_t)(b >> 32) };
	int i, j;

	memset(r, 0, 4 * sizeof(r[0]));
	for (i = 0; i < 2; i++) {
		uint64_t carry = 0;

		for (j = 0; j < 2; j++) {
			uint64_t t = (uint64_t)x[i] * y[j] + r[i + j] + carry;

			r[i + j] = (uint32_t)t;
			carry = t >> 32;
		}
		r[i + 2] = (uint32_t)carry;
	}
}

/* Bits [shift, shift + 64) of the 128-bit limb number r. */
static inline uint64_t limbs_shr(const uint32_t r[4], unsigned shift)
{
	unsigned w = shift / 32, b = shift % 32, k;
	uint32_t out[2];

	for (k = 0; k < 2; k++) {
		uint32_t lo = w + k < 4 ? r[w + k] : 0;
		uint32_t hi = w + k + 1 < 4 ? r[w + k + 1] : 0;

		out[k] = b ? (lo >> b) | (hi << (32 - b)) : lo;
	}
	return (uint64_t)out[1] << 32 | out[0];
}

/* floor(a * mul / 2^shift) mod 2^64 for any shift (0 from 128 on). */
static inline uint64_t ref_mul_shr(uint64_t a, uint32_t mul, unsigned shift)
{
	uint32_t r[4];

	if (shift >= 128)
		return 0;
	mul_limbs(a, mul, r);
	return limbs_shr(r, shift);
}

/* count * enabled / running by shift-and-subtract long division over the limbs, saturated. */
static inline uint64_t ref_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	uint32_t n[4];
	uint64_t rem = 0, q_hi = 0, q_lo = 0;
	int i;

	if (!running)
		return 0;
	mul_limbs(count, enabled, n);
	for (i = 127; i >= 0; i--) {
		unsigned top = rem >> 63;

		rem = rem << 1 | ((n[i / 32] >> (i % 32)) & 1);
		q_hi = q_hi << 1 | q_lo >> 63;
		q_lo <<= 1;
		if (top || rem >= running) {
			rem -= running;
			q_lo |= 1;
		}
	}
	return q_hi ? UINT64_MAX : q_lo;
}

static inline uint64_t ref_sign_extend(uint64_t v, unsigned width)
{
	uint64_t mask = mask_of(width);

	return (v >> (width - 1)) & 1 ? v | ~mask : v & mask;
}

#endif
