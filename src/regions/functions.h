/* SPDX-License-Identifier: MIT */
/*
 * Every function as a region (functions.c): the hooks of GCC's and Clang's
 * -finstrument-functions, and what the reports say of them.
 */
#ifndef PMU_FUNCTIONS_H
#define PMU_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/internal.h"

/* fn_names.c: the name of the function at fn into buf (at least PMU_REGION_NAME bytes), under functions.c's lock. */
void pmu__fn_name(void *fn, char *buf, size_t size);

/* A function counted no further past its first calls (the overhead budget), for the reports. */
struct pmu__fn_cut {
	const char *name;
	uint64_t seen;		/* calls seen, counted or not */
	double pair_ns;		/* what a pair cost it, measured over its first calls */
	double fn_ns;		/* and what one of its calls took */
};
/* Calls each(cut, arg) for each such function; the number of them. */
unsigned pmu__fn_cuts(void (*each)(const struct pmu__fn_cut *c, void *arg), void *arg);
/* The share of a call's time its pair may take (PMU_FUNCTIONS_BUDGET), and the calls counted before the test. */
double pmu__fn_budget(void);
#define PMU_FN_TRIAL 100

#endif
