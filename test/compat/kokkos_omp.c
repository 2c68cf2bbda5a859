// SPDX-License-Identifier: MIT
/*
 * A Kokkos OpenMP backend as libpmu-kokkos and libpmu-omp see it: the
 * Kokkos Tools hooks on the launching thread around an OpenMP parallel
 * region that runs the kernel on every thread of the team (Debian's Kokkos
 * has the Serial backend alone). With both loaded, the kernel "fill [for]"
 * counts every thread that ran it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void kokkosp_init_library(int seq, uint64_t version, uint32_t ndev, void *devices);
void kokkosp_finalize_library(void);
void kokkosp_begin_parallel_for(const char *name, uint32_t dev, uint64_t *id);
void kokkosp_end_parallel_for(uint64_t id);

int main(void)
{
	volatile double sum = 0;
	uint64_t id;

	kokkosp_init_library(0, 20211015, 0, NULL);
	for (int r = 0; r < 3; r++) {
		kokkosp_begin_parallel_for("fill", 0, &id);
#pragma omp parallel
		{
			double s = 0;

			for (int i = 0; i < 200000; i++)
				s += i * 0.5;
#pragma omp atomic
			sum += s;
		}
		kokkosp_end_parallel_for(id);
	}
	kokkosp_finalize_library();
	printf("%.1f\n", sum);
	return 0;
}
