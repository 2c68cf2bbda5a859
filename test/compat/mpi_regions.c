// SPDX-License-Identifier: MIT
/*
 * An MPI job for libpmu-mpi: every rank but 1 runs "work" (and "sum" in it),
 * the even ranks "even" too, rank 1 no region of its own. Each rank also writes its own
 * report (argv[1], %r) before MPI_Finalize, for the test to merge them with
 * pmu report merge and compare with the job's report libpmu-mpi writes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>

int main(int argc, char **argv)
{
	int rank, size, r;
	double local = 0, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int step = 0; step < 5 && rank != 1; step++) {
		size_t n = (size_t)(rank + 1) << 14;
		char *buf = malloc(n);

		pmu_region_begin("work");
		if (buf) {
			memset(buf, step, n);
			pmu_region_begin("sum");	/* a call path: work;sum */
			for (size_t i = 0; i < n; i += 64)
				local += buf[i];
			pmu_region_end("sum");
		}
		pmu_region_end("work");
		free(buf);
		if (rank % 2 == 0) {
			pmu_region_begin("even");
			local += step;
			pmu_region_end("even");
		}
	}
	MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	r = argc > 1 ? pmu_report_path(argv[1], NULL) : 0;
	if (r < 0)
		fprintf(stderr, "rank %d: %s\n", rank, pmu_errmsg());
	if (rank == 0)
		printf("%d ranks, sum %.0f\n", size, sum);
	MPI_Finalize();
	return r < 0;
}
