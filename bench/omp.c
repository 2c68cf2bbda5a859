// SPDX-License-Identifier: MIT
/*
 * ns per empty OpenMP parallel region, the fewest and the median of 9
 * batches: run it with and without libpmu-omp (OMP_TOOL_LIBRARIES) to see
 * what the tool adds per region; per thread, divide by OMP_NUM_THREADS.
 * Figures only, never compared. Built with clang -fopenmp (libomp).
 *   bench/omp [REGIONS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCHES 9

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	double ns[BATCHES];
	volatile int sink = 0;

	if (n < 1) {
		fprintf(stderr, "bench/omp: REGIONS '%s': not a positive number\n", argv[1]);
		return 129;
	}
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now();

		for (int r = 0; r < n; r++) {
#pragma omp parallel
			sink++;
		}
		ns[b] = (now() - t0) / n;
	}
	qsort(ns, BATCHES, sizeof(ns[0]), cmp);
	printf("empty parallel region, ns: fewest %.0f, median %.0f (%d batches of %d)\n", ns[0], ns[BATCHES / 2],
	       BATCHES, n);
	return 0;
}
