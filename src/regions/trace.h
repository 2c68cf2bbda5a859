/* SPDX-License-Identifier: MIT */
/*
 * The timeline (trace.c): with PMU_TRACE=NAME.json in the environment at
 * pmu_thread_init(), every outermost call of a region, its thread, begin,
 * duration and counter deltas, kept in a buffer per thread (the first
 * PMU_TRACE_CALLS calls, 100000 by default; the others counted as dropped),
 * written in Chrome's Trace Event Format at exit and by pmu_report(f, "trace").
 */
#ifndef PMU_TRACE_H
#define PMU_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "regions/region.h"

struct pmu__trace;

/* A thread's buffer for n events when PMU_TRACE is set (and memory allows), else NULL. */
struct pmu__trace *pmu__trace_new(unsigned n, const struct pmu_set *set, bool clk_page);
void pmu__trace_free(struct pmu__trace *tr);
/* An exited thread's calls, folded into the others' figures (thread.c): counted as dropped from the trace. */
void pmu__trace_folded(const struct pmu__trace *tr);
/* pmu_thread_fini(): no call folded any more. */
void pmu__trace_reset(void);
/* The call of frame fr, ns long, the values at its end v1[0..n): kept, or counted as dropped. */
void pmu__trace_add(struct pmu__region_thr *t, const struct pmu__frame *fr, uint64_t ns, const uint64_t *v1,
		    unsigned n);
/* Every thread's calls so far as one Chrome trace (JSON) to f: 0, or -errno with a message. */
int pmu__trace_write(FILE *f);
/* The trace to PMU_TRACE's name (%p %h %r expanded), once: at exit, and at zero-code mode's exit. */
void pmu__trace_at_exit(void);

#endif
