/* SPDX-License-Identifier: MIT */
/* The timeline of region calls: see trace.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "outfile.h"
#include "report.h"
#include "set.h"
#include "thread.h"
#include "trace.h"

#define TRACE_CALLS 100000	/* calls a thread keeps, by default */

/* A thread's calls: each 3 + n words (id, begin ns, ns, the n deltas), published by n with release. */
struct pmu__trace {
	uint64_t ref_clk, ref_ns;	/* the set's clock and CLOCK_MONOTONIC when made: begin times from t0 */
	const struct perf_event_mmap_page *page;	/* the clock's page (clk_page), or NULL: t0 is ns */
	uint64_t caps;					/* its capabilities */
	unsigned nev;
	uint32_t cap, n;
	uint64_t dropped;
	uint64_t rec[];
};

static void trace_atexit(void);
static bool said_calls;		/* PMU_TRACE_CALLS malformed: said once */

struct pmu__trace *pmu__trace_new(unsigned n, const struct pmu_set *set, bool clk_page)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *path = pmu__getenv("PMU_TRACE"), *calls = pmu__getenv("PMU_TRACE_CALLS");
	unsigned long cap = TRACE_CALLS;
	struct pmu__trace *tr;
	char *end;

	if (!path || !*path)
		return NULL;
	if (calls && *calls) {
		bool bad;

		cap = strtoul(calls, &end, 10);
		bad = *end || *calls < '1' || *calls > '9' || cap > UINT32_MAX / 2;
		if (bad && !__atomic_exchange_n(&said_calls, true, __ATOMIC_RELAXED))
			fprintf(stderr, "libpmu: PMU_TRACE_CALLS=%.32s: not a number of calls from 1 to %u: %u kept\n",
				calls, UINT32_MAX / 2, TRACE_CALLS);
		cap = bad ? TRACE_CALLS : cap;
	}

	/* malloc: the pages a thread never fills are never touched */
	tr = malloc(sizeof(*tr) + (size_t)cap * (3 + n) * sizeof(uint64_t));
	if (!tr) {
		fprintf(stderr, "libpmu: PMU_TRACE: no memory for %lu calls of a thread: its calls are not traced\n", cap);
		return NULL;
	}
	memset(tr, 0, sizeof(*tr));
	tr->nev = n;
	tr->cap = (uint32_t)cap;
	tr->page = clk_page ? pmu__set_timed1(set) : NULL;
	tr->caps = tr->page ? PMU_INL_LD(tr->page, capabilities) : 0;
	tr->ref_clk = clk_page ? pmu__set_cycles() : 0;
	tr->ref_ns = pmu__mono_ns();
	pthread_once(&once, trace_atexit);
	return tr;
}

void pmu__trace_free(struct pmu__trace *tr)
{
	free(tr);
}

void pmu__trace_add(struct pmu__region_thr *t, const struct pmu__frame *fr, uint64_t ns, const uint64_t *v1,
		    unsigned n)
{
	struct pmu__trace *tr = t->trace;
	uint64_t *r, begin = fr->t0;

	if (tr->n == tr->cap) {
		__atomic_store_n(&tr->dropped, tr->dropped + 1, __ATOMIC_RELAXED);
		return;
	}
	if (tr->page)	/* the set's clock, as the region's ns: since the buffer was made */
		begin = tr->ref_ns + (begin > tr->ref_clk ? pmu_inl_ns_between(tr->page, tr->caps, tr->ref_clk, begin) : 0);
	r = tr->rec + (size_t)tr->n * (3 + n);
	r[0] = fr->id;
	r[1] = begin;
	r[2] = ns;
	for (unsigned i = 0; i < n; i++)
		r[3 + i] = pmu__ev_delta(fr->v[i], v1[i]);
	__atomic_store_n(&tr->n, tr->n + 1, __ATOMIC_RELEASE);
}

/* A time of the trace: ns after t0, as Chrome's microseconds with the ns kept exactly. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ", \"%s\": %" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

/* Thread t's calls (ts from t0): complete events, and a counter track per region and event (each call's delta). */
static void thread_events(FILE *f, const struct pmu__thr *t, const struct pmu__trace *tr, const struct pmu__tconf *c,
			  uint64_t t0, bool *first)
{
	uint32_t n = __atomic_load_n(&tr->n, __ATOMIC_ACQUIRE);
	int pid = (int)getpid();

	fprintf(f, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": ",
		*first ? "" : ",\n", pid, (int)t->tid);
	pmu__json_str(f, t->tname);
	fputs("}}", f);
	*first = false;
	for (uint32_t k = 0; k < n; k++) {
		const uint64_t *r = tr->rec + (size_t)k * (3 + tr->nev);

		fputs(",\n{\"name\": ", f);
		pmu__json_str(f, pmu__region_name((unsigned)r[0]));
		fprintf(f, ", \"cat\": \"region\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d", pid, (int)t->tid);
		put_us(f, "ts", r[1] - t0);
		put_us(f, "dur", r[2]);
		fputs(", \"args\": {", f);
		for (unsigned i = 0; i < tr->nev; i++) {
			fputs(i ? ", " : "", f);
			pmu__json_str(f, c->names[i]);
			fprintf(f, ": %" PRIu64, r[3 + i]);
		}
		fputs("}}", f);
		for (unsigned i = 0; i < tr->nev; i++)
			for (int end = 0; end < 2; end++) {
				char track[400];

				/*
				 * a step: the call's delta from its begin to its end, on a track of the
				 * region's own (the calls of one region on a thread never overlap; a
				 * nested region's end would show 0 inside the call around it)
				 */
				snprintf(track, sizeof(track), "%s tid %d %s", c->names[i], (int)t->tid,
					 pmu__region_name((unsigned)r[0]));
				fputs(",\n{\"name\": ", f);
				pmu__json_str(f, track);
				fprintf(f, ", \"ph\": \"C\", \"pid\": %d, \"tid\": %d", pid, (int)t->tid);
				put_us(f, "ts", r[1] - t0 + (end ? r[2] : 0));
				fprintf(f, ", \"args\": {\"per call\": %" PRIu64 "}}", end ? 0 : r[3 + i]);
			}
	}
}

/* The thread's buffer, when it has one. */
static const struct pmu__trace *trace_of(const struct pmu__thr *t)
{
	const struct pmu__region_thr *r = __atomic_load_n(&t->upper, __ATOMIC_ACQUIRE);

	return r ? r->trace : NULL;
}

int pmu__trace_write(FILE *f)
{
	const struct pmu__tconf *c = pmu__thr_walk_begin();
	uint64_t t0 = UINT64_MAX, dropped = 0, calls = 0;
	const struct pmu__thr *t;
	bool any = false, first = true;

	for (t = c ? pmu__thr_walk_next(NULL) : NULL; t; t = pmu__thr_walk_next(t)) {
		const struct pmu__trace *tr = trace_of(t);
		uint32_t n = tr ? __atomic_load_n(&tr->n, __ATOMIC_ACQUIRE) : 0;

		any |= tr != NULL;
		for (uint32_t k = 0; k < n; k++)
			t0 = tr->rec[(size_t)k * (3 + tr->nev) + 1] < t0 ? tr->rec[(size_t)k * (3 + tr->nev) + 1] : t0;
		calls += n;
		dropped += tr ? __atomic_load_n(&tr->dropped, __ATOMIC_RELAXED) : 0;
	}
	if (!any) {
		pmu__thr_walk_end();
		return pmu__err(-EINVAL, "pmu_report: no trace: set PMU_TRACE in the environment before "
				"pmu_thread_init() (or zero-code mode's start)");
	}
	fputs("{\"traceEvents\": [\n", f);
	for (t = pmu__thr_walk_next(NULL); t; t = pmu__thr_walk_next(t))
		if (trace_of(t))
			thread_events(f, t, trace_of(t), c, t0 == UINT64_MAX ? 0 : t0, &first);
	fprintf(f, "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": {\"library\": \"libpmu %s\", \"calls\": %" PRIu64
		", \"dropped\": %" PRIu64 "}}\n", pmu_version(), calls, dropped);
	pmu__thr_walk_end();
	if (dropped)
		fprintf(stderr, "libpmu: PMU_TRACE: %" PRIu64 " region calls not traced: a thread keeps its first "
			"calls only (PMU_TRACE_CALLS)\n", dropped);
	return 0;
}

/* ---- at exit: to PMU_TRACE's name ---- */

/* Whether a thread has a buffer now. */
static bool traced(void)
{
	const struct pmu__thr *t;
	bool any = false;

	if (pmu__thr_walk_begin())
		for (t = pmu__thr_walk_next(NULL); t && !any; t = pmu__thr_walk_next(t))
			any = trace_of(t) != NULL;
	pmu__thr_walk_end();
	return any;
}

static pid_t trace_pid;
static bool trace_done;

void pmu__trace_at_exit(void)
{
	const char *p = pmu__getenv("PMU_TRACE");
	char name[4096];
	struct pmu__out o;
	int r;

	if (trace_done || !p || !*p || (getpid() != trace_pid && !strstr(p, "%p")) || !traced())
		return;	/* nothing traced (the per-thread layer ended, or no region ran): no file */
	trace_done = true;
	if (!pmu__report_name(name, sizeof(name), p)) {
		fprintf(stderr, "libpmu: PMU_TRACE: the name is too long\n");
		return;
	}
	if ((r = pmu__out_open(&o, name, false)) < 0) {
		fprintf(stderr, "libpmu: PMU_TRACE: %s\n", pmu_errmsg());
		return;
	}
	r = pmu__trace_write(o.f);
	if (pmu__out_close(&o, r == 0) < 0 || r < 0)
		fprintf(stderr, "libpmu: PMU_TRACE=%s: %s\n", name, r < 0 ? pmu_errmsg() : "the trace could not be written");
}

static void trace_atexit(void)
{
	trace_pid = getpid();
	atexit(pmu__trace_at_exit);
}
