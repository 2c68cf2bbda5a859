/* SPDX-License-Identifier: MIT */
/*
 * pmu report diff's parts: the two inputs read into figures (diff_in.c),
 * compared, gated and written (diff.c), with Welch's t-test (stats.c).
 */
#ifndef PMU_TOOL_DIFF_H
#define PMU_TOOL_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

/* A figure of a region: per call for a report's events and ns, as given for metrics and pmu stat's events. */
struct dfig {
	char *name;		/* "calls", "ns", an event, a metric's key */
	struct sample s;	/* its mean, and the variance of the mean where the input has a spread */
	bool spread;		/* s.var and s.n come from the input */
	bool partial;		/* counted less than all the time (multiplexed) */
};

struct dreg {
	char *name;
	uint64_t calls;
	struct pmu__shist hist;	/* its calls' ns (PMU_HISTOGRAMS), or empty */
	unsigned nfig;
	struct dfig *fig;
};

enum dkind { D_REPORT, D_MERGED, D_STAT };

struct dside {
	const char *path;
	enum dkind kind;
	char *library, *hostname, *kernel;	/* NULL where the input has none */
	char *events;				/* the event list, ',' between them */
	char *comp;				/* region reports since 0.6: "yes" compensated (some thread), "no" */
	bool emulated;				/* a report of a run under pmu emulate: its instructions are QEMU's */
	unsigned nreg;
	struct dreg *reg;
};

/* Reads path (a region report, a merged one, or pmu stat -j's lines) into d: 0, or -errno (tool_errmsg() says). */
int diff_read(const char *path, struct dside *d);
void diff_free(struct dside *d);

#endif
