/* SPDX-License-Identifier: MIT */
/*
 * An MPI job measured with regions: each rank writes its own report,
 * named by its rank, and `pmu report merge` makes one view of them.
 *
 *   mpicc -o mpi_regions regions.c -lpmu
 *   mpirun -np 2 ./mpi_regions 'run-%h-%r.json'
 *
 * PMU_EVENTS chooses the events (task-clock,page-faults by default).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>

int main(int argc, char **argv)
{
	const char *events = getenv("PMU_EVENTS"), *out = argc > 1 ? argv[1] : "mpi-%h-%r.json";
	int rank, size, r;
	double local = 0, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* With PMU_EVENTS set, zero-code mode has set the layer up already. */
	if (!events && pmu_thread_init("task-clock,page-faults") < 0) {
		fprintf(stderr, "rank %d: %s\n", rank, pmu_errmsg());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int step = 0; step < 10; step++) {
		size_t n = (size_t)(rank + 1) << 16;	/* rank 1 works twice as hard */
		char *buf;

		pmu_region_begin("compute");
		buf = malloc(n);
		if (buf) {
			memset(buf, step, n);
			for (size_t i = 0; i < n; i += 64)
				local += buf[i];
			free(buf);
		}
		pmu_region_end("compute");

		pmu_region_begin("exchange");
		MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		pmu_region_end("exchange");
	}
	r = pmu_report_path(out, NULL);
	if (r < 0)
		fprintf(stderr, "rank %d: %s\n", rank, pmu_errmsg());
	if (rank == 0)
		printf("%d ranks, sum %.0f\n", size, sum);
	MPI_Finalize();
	return r < 0;
}
