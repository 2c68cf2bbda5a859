// SPDX-License-Identifier: MIT
/*
 * An OpenMP program for libpmu-omp: three runs of a parallel region with a
 * loop and a single inside, then a nested parallel region. Unchanged OpenMP
 * code: the tool finds the constructs through OMPT.
 */
#include <stdio.h>

static double work(int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += i * 0.5;
	return s;
}

int main(void)
{
	double t = 0;

	for (int r = 0; r < 3; r++) {
#pragma omp parallel reduction(+ : t)
		{
			t += work(100000);
#pragma omp for
			for (int i = 0; i < 64; i++)
				t += work(1000);
#pragma omp single
			t += work(10);
		}
	}
#pragma omp parallel num_threads(2) reduction(+ : t)
	{
#pragma omp parallel num_threads(2) reduction(+ : t)
		t += work(1000);
	}
	printf("%.1f\n", t);
	return 0;
}
