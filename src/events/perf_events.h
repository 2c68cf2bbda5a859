/* SPDX-License-Identifier: MIT */
/* What perf_json.c (the files, the metrics) and perf_events.c (their events) share. */
#ifndef PMU_TOOL_PERF_EVENTS_H
#define PMU_TOOL_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

struct pmu__json;

/* An event of the files: its name and the terms it opens with, or why it cannot be. */
struct pj_event {
	char *name;
	char *spec;
	char *why;
};

/* A member of a JSON object as a string (NULL when absent or not one), and as perf's number ("0x1f", "3"). */
const char *pmu__pj_str(const struct pmu__json *o, const char *key);
long long pmu__pj_num(const struct pmu__json *o, const char *key, bool *bad);
/* The core PMU's name for the events' terms (the sysfs root's, else arm64's or x86's usual one). */
const char *pmu__pj_core_name(bool arm);
/* s in lower case (malloc'd), NULL when out of memory. */
char *pmu__pj_lower(const char *s);
/* The event named name[0..len) in ev[0..n), case ignored, or NULL. */
const struct pj_event *pmu__pj_find_in(const struct pj_event *ev, size_t n, const char *name, size_t len);
/* Event o of a file appended to *ev (std: arm64's architected events for ArchStdEvent). 0 or -ENOMEM. */
int pmu__pj_add_event(struct pj_event **ev, size_t *n, const struct pmu__json *o, bool arm, const struct pj_event *std,
		 size_t nstd);
void pmu__pj_events_free(void);

#endif
