/* SPDX-License-Identifier: MIT */
/* Declarations shared by the library's files; not installed. */
#ifndef PMU_INTERNAL_H
#define PMU_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "pmu.h"

#define PMU_API __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* error.c: sets this thread's message and returns err (a -errno). */
int pmu__err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends to this thread's message (e.g. a hint after a callee's message). */
void pmu__err_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pmu__err_clear(void);

/* event.c: one event name resolved into one attr per PMU it counts on. */
#define PMU_MAX_PMUS 8		/* core PMUs of one hybrid machine */
#define PMU_PMU_NAME 48

struct pmu__attr {
	struct perf_event_attr attr;
	char pmu[PMU_PMU_NAME];	/* "software", "cpu", "cpu_core", "armv8_pmuv3_0" */
	uint64_t auto_long;	/* config1 bits the library set that open may drop on EOPNOTSUPP */
};

struct pmu__event {
	unsigned n;		/* >= 1; more than one only for a generic event on hybrid PMUs */
	struct pmu__attr a[PMU_MAX_PMUS];
};

/*
 * Resolves the event s[0..len) (one event, no top-level comma) into ev. Sets
 * attr.size, type, config, config1..3 and exclude_user/kernel/hv; leaves every
 * other field zero. Default when there is no modifier: user space only for
 * CPU events (but context switches and migrations, which happen in the
 * kernel), nothing excluded on other PMUs.
 * Returns 0 or -errno with pmu__err() naming the event.
 */
int pmu__event_parse(const char *s, size_t len, struct pmu__event *ev);

/*
 * Splits a comma-separated list: commas inside "pmu/.../" belong to the
 * event. On the first call *p is the list. Returns 1 with [*tok, *tok+*len)
 * the next event, 0 at the end, or -EINVAL (message set) for an empty event.
 */
int pmu__event_next(const char **p, const char **tok, size_t *len);

/* sysfs root for PMU devices: $PMU_SYSFS_DEVICES or /sys/bus/event_source/devices. */
const char *pmu__sysfs_root(void);

/* report.c: s as a JSON string, quoted and escaped (the report and the tool). */
void pmu__json_str(FILE *f, const char *s);

/* pmu.c, for tests: counter i of a set (one per event but on hybrid machines). 0 or -EINVAL. */
unsigned pmu__counters(const struct pmu_set *set);
int pmu__counter(const struct pmu_set *set, unsigned i, int *fd,
		 const struct perf_event_mmap_page **page, unsigned *event);

#endif
