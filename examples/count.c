/* SPDX-License-Identifier: MIT */
/*
 * Counts a loop of this program with libpmu: hardware events where the
 * machine has a PMU, software events otherwise.
 *   build: cc count.c $(pkg-config --cflags --libs libpmu)
 *   run:   ./count [EVENTS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <pmu.h>

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "instructions,cycles";
	struct pmu_set *set;
	uint64_t before[16], after[16];
	volatile uint64_t sum = 0;

	if (pmu_open(&set, events) < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		if (argc > 1)
			return 1;
		events = "task-clock,page-faults";
		fprintf(stderr, "counting %s instead\n", events);
		if (pmu_open(&set, events) < 0) {
			fprintf(stderr, "%s\n", pmu_errmsg());
			return 1;
		}
	}
	if (pmu_count(set) > 16) {
		fprintf(stderr, "at most 16 events\n");
		return 1;
	}
	pmu_read(set, before);
	for (uint64_t i = 0; i < 10000000; i++)
		sum += i * i;
	pmu_read(set, after);

	printf("sum of squares: %llu\n", (unsigned long long)sum);
	for (unsigned i = 0; i < pmu_count(set); i++) {
		const char *why;
		int user = pmu_user_read(set, i, &why);

		printf("%-20s %12llu   (%s: %s)\n", pmu_name(set, i),
		       (unsigned long long)(after[i] - before[i]), user ? "user-space read" : "read(2)", why);
	}
	pmu_close(set);
	return 0;
}
