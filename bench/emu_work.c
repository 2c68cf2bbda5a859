/* SPDX-License-Identifier: MIT */
/*
 * The workloads of bench/emulate.sh, the same code natively, under QEMU
 * (with and without libpmu-qemu) and under cachegrind:
 *   emu_work loop N      a compute loop of N iterations (a hash step each:
 *                        about 10 instructions), no libpmu call
 *   emu_work regions N   N region pairs by name around 50 iterations of the
 *                        same step: what PMU_EVENTS counts (zero-code mode)
 * Prints the hash, so that the work is not optimised away.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>

static uint64_t step(uint64_t h, uint64_t i)
{
	h ^= i;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint64_t loop(uint64_t h, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		h = step(h, i);
	return h;
}

int main(int argc, char **argv)
{
	unsigned long n = argc == 3 ? strtoul(argv[2], NULL, 10) : 0;
	uint64_t h = 0xcbf29ce484222325ull;

	if (argc != 3 || !n || (strcmp(argv[1], "loop") && strcmp(argv[1], "regions"))) {
		fprintf(stderr, "usage: emu_work loop|regions N\n");
		return 2;
	}
	if (!strcmp(argv[1], "loop")) {
		h = loop(h, n);
	} else {
		for (unsigned long r = 0; r < n; r++) {
			pmu_region_begin("step");
			h = loop(h, 50);
			pmu_region_end("step");
		}
	}
	printf("%016" PRIx64 "\n", h);
	return 0;
}
