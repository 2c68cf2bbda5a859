/* SPDX-License-Identifier: MIT */
/* A json report of pmu_report()'s read back and checked against its schema (report_read.c), for pmu report merge. */
#ifndef PMU_TOOL_REPORT_READ_H
#define PMU_TOOL_REPORT_READ_H

#include "json.h"

/* A region of a json report read back: its totals over threads. */
struct pmu__rep_region {
	const char *name;
	unsigned line;
	uint64_t calls, ns;
	uint64_t *counts;	/* per event of the report */
	bool range;		/* per call ns_min, ns_max and min, max of each event, all given */
	double ns_min, ns_max;
	double *min, *max;	/* per event, when range */
};

/* A json report (pmu_report's) read back and checked; strings point into doc. */
struct pmu__rep {
	const char *path;
	struct pmu__json *doc;
	const char *library, *hostname, *command, *start;
	unsigned major, minor, patch;
	long pid;
	uint64_t start_ns;
	unsigned nev, nreg;
	const char **ev;
	struct pmu__rep_region *reg;
};

/*
 * Reads the report at path and checks it against what pmu_report writes:
 * every known field present with its type, counts that are non-negative
 * integers with one per event, unique names, threads summing to their
 * region, this library's major version. Unknown fields are left alone, so
 * that later versions' additions read. 0, or -errno with a message
 * "PATH:LINE: region \"x\": \"calls\" is not a non-negative integer".
 */
int pmu__rep_read(const char *path, struct pmu__rep *r);
/* The same from a buffer (name for messages). */
int pmu__rep_parse(const char *name, const char *buf, size_t len, struct pmu__rep *r);
void pmu__rep_free(struct pmu__rep *r);

#endif
