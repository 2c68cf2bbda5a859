/* SPDX-License-Identifier: MIT */
/*
 * Call paths: "solve" called from "setup" and from "step" is two paths,
 * each with its own figures, and each region's self (its total less the
 * regions inside it). The table ends with the call path section; the json
 * report has them as "paths".
 *   build: cc paths.c $(pkg-config --cflags --libs libpmu)
 *   run:   ./paths [table|json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <pmu.h>

/* Faults in pages new pages, of a mapping of their own: as many page faults on any machine. */
static void fault(int pages)
{
	size_t size = (size_t)pages * 4096;
	volatile char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	for (size_t i = 0; p != MAP_FAILED && i < size; i += 4096)
		p[i] = 1;
	if (p != MAP_FAILED)
		munmap((void *)p, size);
}

static void solve(int pages)
{
	pmu_region_begin("solve");
	fault(pages);
	pmu_region_end("solve");
}

int main(int argc, char **argv)
{
	if (pmu_thread_init("page-faults") < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	pmu_region_begin("setup");
	fault(100);
	solve(100);
	pmu_region_end("setup");
	for (int i = 0; i < 3; i++) {
		pmu_region_begin("step");
		solve(200);
		pmu_region_end("step");
	}
	return pmu_report(stdout, argc > 1 ? argv[1] : "table") == 0 ? 0 : 1;
}
