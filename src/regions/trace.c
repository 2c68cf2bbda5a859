/* SPDX-License-Identifier: MIT */
/* The timeline of region calls: see trace.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "output/outfile.h"
#include "output/report_path.h"
#include "counters/set.h"
#include "regions/thread.h"
#include "regions/trace.h"

#define TRACE_CALLS 100000	/* calls a thread keeps, by default */

/*
 * A thread's calls: each 3 + n words (node << 32 | region id, begin ns, ns,
 * the n deltas), published by n with release.
 */
struct pmu__trace {
	uint64_t ref_clk, ref_ns;	/* the set's clock and CLOCK_MONOTONIC when made: begin times from t0 */
	bool clk;			/* t0 is the set's clock (clk_page), not ns */
	struct perf_event_mmap_page conv;	/* then its conversion to ns (pmu__page_clock()) */
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
		if (bad && PMU_ONCE(said_calls))
			pmu__print(PMU_PRINT_WARN, "libpmu: PMU_TRACE_CALLS=%s: not a number of calls from 1 to %u: %u "
				   "kept\n", pmu__show(&(struct pmu__shown){ 0 }, calls, strlen(calls)), UINT32_MAX / 2,
				   TRACE_CALLS);
		cap = bad ? TRACE_CALLS : cap;
	}

	/* malloc: the pages a thread never fills are never touched */
	tr = malloc(sizeof(*tr) + (size_t)cap * (3 + n) * sizeof(uint64_t));
	if (!tr) {
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_TRACE: no memory for %lu calls of a thread: its calls are not "
			   "traced\n", cap);
		return NULL;
	}
	memset(tr, 0, sizeof(*tr));
	tr->nev = n;
	tr->cap = (uint32_t)cap;
	tr->clk = clk_page;
	if (clk_page)
		pmu__page_clock(pmu__set_timed1(set), &tr->conv);
	tr->ref_clk = clk_page ? pmu__set_cycles() : 0;
	tr->ref_ns = pmu__mono_ns();
	pthread_once(&once, trace_atexit);
	return tr;
}

void pmu__trace_free(struct pmu__trace *tr)
{
	free(tr);
}

static uint64_t folded_calls;	/* atomic: calls of the threads folded (their buffers gone), dropped */

void pmu__trace_folded(const struct pmu__trace *tr)
{
	if (tr)
		PMU_ADD(folded_calls, tr->n + tr->dropped);
}

void pmu__trace_reset(void)
{
	PMU_WRITE_ONCE(folded_calls, 0);
}

void pmu__trace_add(struct pmu__region_thr *t, const struct pmu__frame *fr, uint64_t ns, const uint64_t *v1,
		    unsigned n)
{
	struct pmu__trace *tr = t->trace;
	uint64_t *r, begin = fr->t0;

	if (tr->n == tr->cap) {
		PMU_WRITE_ONCE(tr->dropped, tr->dropped + 1);
		return;
	}
	if (tr->clk)	/* the set's clock, as the region's ns: since the buffer was made */
		begin = tr->ref_ns + (begin > tr->ref_clk ?
				      pmu_inl_ns_between(&tr->conv, tr->conv.capabilities, tr->ref_clk, begin) : 0);
	r = tr->rec + (size_t)tr->n * (3 + n);
	r[0] = fr->a->idx << 32 | (uint32_t)fr->id;	/* its call path's node, and its region */
	r[1] = begin;
	r[2] = ns;
	for (unsigned i = 0; i < n; i++)
		r[3 + i] = pmu__ev_delta(fr->v[i], v1[i]);
	PMU_STORE_RELEASE(tr->n, tr->n + 1);
}

/* A time of the trace: ns after t0, as Chrome's microseconds with the ns kept exactly. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ", \"%s\": %" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

/* A thread's calls as copied under the list's lock, to be written after it (a write may block, or be cancelled). */
struct tcopy {
	pid_t tid;
	char tname[16];
	uint32_t n;
	uint64_t *rec;		/* n * (3 + nev) words */
	uint64_t *ups;		/* its call path nodes (pmu__region_node_ups()) */
	unsigned nups;
};

/* What the file holds, copied: each traced thread's calls and the events' names. */
struct tsnap {
	unsigned nthr, nev;
	struct tcopy *thr;
	char **names;
	uint64_t t0, calls, dropped;
	uint64_t folded;	/* calls of the threads folded (thread.c), dropped too */
	char *path;		/* room for a call's path (PMU_PATH_BUF) */
};

static void tsnap_free(void *p)
{
	struct tsnap *s = p;

	for (unsigned i = 0; s->thr && i < s->nthr; i++) {
		free(s->thr[i].rec);
		free(s->thr[i].ups);
	}
	free(s->path);
	for (unsigned i = 0; s->names && i < s->nev; i++)
		free(s->names[i]);
	free(s->thr);
	free(s->names);
}

/* Node idx of c's call paths: its names from the top joined by ';' (a ';' in one as \x3b) at b. Its end. */
static char *path_of(const struct tcopy *c, uint64_t idx, char *b, unsigned depth)
{
	uint64_t up = c->ups[idx] >> 32;

	if (up < c->nups && depth <= PMU_REGION_DEPTH) {
		b = path_of(c, up, b, depth + 1);
		*b++ = ';';
	}
	return pmu__path_frame(b, pmu__region_name((uint32_t)c->ups[idx]));
}

/* Thread c's calls (ts from s->t0): complete events, and a counter track per region and event (each call's delta). */
static void thread_events(FILE *f, const struct tsnap *s, const struct tcopy *c, bool *first)
{
	int pid = (int)getpid();

	fprintf(f, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": ",
		*first ? "" : ",\n", pid, (int)c->tid);
	pmu__json_str(f, c->tname);
	fputs("}}", f);
	*first = false;
	for (uint32_t k = 0; k < c->n; k++) {
		const uint64_t *r = c->rec + (size_t)k * (3 + s->nev);

		fputs(",\n{\"name\": ", f);
		pmu__json_str(f, pmu__region_name((uint32_t)r[0]));
		fprintf(f, ", \"cat\": \"region\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d", pid, (int)c->tid);
		put_us(f, "ts", r[1] - s->t0);
		put_us(f, "dur", r[2]);
		fputs(", \"args\": {\"path\": ", f);
		if (r[0] >> 32 < c->nups)
			path_of(c, r[0] >> 32, s->path, 0);
		else	/* not among the nodes copied: never, as a call's node is made before it */
			pmu__path_frame(s->path, pmu__region_name((uint32_t)r[0]));
		pmu__json_str(f, s->path);
		for (unsigned i = 0; i < s->nev; i++) {
			fputs(", ", f);
			pmu__json_str(f, s->names[i]);
			fprintf(f, ": %" PRIu64, r[3 + i]);
		}
		fputs("}}", f);
		for (unsigned i = 0; i < s->nev; i++)
			for (int end = 0; end < 2; end++) {
				char track[400];

				/*
				 * a step: the call's delta from its begin to its end, on a track of the
				 * region's own (the calls of one region on a thread never overlap; a
				 * nested region's end would show 0 inside the call around it)
				 */
				snprintf(track, sizeof(track), "%s tid %d %s", s->names[i], (int)c->tid,
					 pmu__region_name((uint32_t)r[0]));
				fputs(",\n{\"name\": ", f);
				pmu__json_str(f, track);
				fprintf(f, ", \"ph\": \"C\", \"pid\": %d, \"tid\": %d", pid, (int)c->tid);
				put_us(f, "ts", r[1] - s->t0 + (end ? r[2] : 0));
				fprintf(f, ", \"args\": {\"per call\": %" PRIu64 "}}", end ? 0 : r[3 + i]);
			}
	}
}

/* The thread's buffer, when it has one. */
static const struct pmu__trace *trace_of(const struct pmu__thr *t)
{
	const struct pmu__region_thr *r = PMU_LOAD_ACQUIRE(t->upper);

	return r ? r->trace : NULL;
}

/* Thread t's calls (tr) into c: 0, or -ENOMEM. */
static int copy_thread(struct tsnap *s, struct tcopy *c, const struct pmu__thr *t, const struct pmu__trace *tr)
{
	size_t words;
	uint32_t n = PMU_LOAD_ACQUIRE(tr->n);

	c->tid = t->tid;
	memcpy(c->tname, t->tname, sizeof(c->tname));
	c->n = n;
	words = (size_t)n * (3 + tr->nev);
	if (words && !(c->rec = malloc(words * sizeof(uint64_t))))
		return -ENOMEM;
	if (words)
		memcpy(c->rec, tr->rec, words * sizeof(uint64_t));
	for (uint32_t k = 0; k < c->n; k++)
		s->t0 = c->rec[(size_t)k * (3 + tr->nev) + 1] < s->t0 ? c->rec[(size_t)k * (3 + tr->nev) + 1] : s->t0;
	s->calls += c->n;
	s->dropped += PMU_READ_ONCE(tr->dropped);
	return pmu__region_node_ups(t, &c->ups, &c->nups);	/* after the calls: their nodes are among these */
}

/* Every traced thread's calls into s, under the list's lock (no cancellation point there). 0 or -errno. */
static int trace_copy(struct tsnap *s)
{
	const struct pmu__tconf *c = pmu__thr_walk_begin();
	const struct pmu__thr *t;
	unsigned n = 0;
	int r = 0;

	*s = (struct tsnap){ .t0 = UINT64_MAX, .nev = c ? c->n : 0,
			     .folded = PMU_READ_ONCE(folded_calls) };
	for (t = c ? pmu__thr_walk_next(NULL) : NULL; t; t = pmu__thr_walk_next(t))
		n += trace_of(t) != NULL;
	if (!(s->thr = calloc(n + 1, sizeof(*s->thr))) || !(s->names = calloc(s->nev + 1, sizeof(*s->names))) ||
	    !(s->path = malloc(PMU_PATH_BUF)))
		r = -ENOMEM;
	for (unsigned i = 0; r == 0 && n && i < s->nev; i++)
		r = (s->names[i] = strdup(c->names[i])) ? 0 : -ENOMEM;
	for (t = n ? pmu__thr_walk_next(NULL) : NULL; r == 0 && t; t = pmu__thr_walk_next(t)) {
		const struct pmu__trace *tr = trace_of(t);

		if (tr)
			r = copy_thread(s, &s->thr[s->nthr++], t, tr);
	}
	pmu__thr_walk_end();
	if (r == 0 && !n)
		return pmu__err(-EINVAL, "pmu_report: no trace: set PMU_TRACE in the environment before "
				"pmu_thread_init() (or zero-code mode's start)");
	return r < 0 ? pmu__err(r, "pmu_report: out of memory for the trace") : 0;
}

static void trace_file(FILE *f, struct tsnap *s)
{
	bool first = true;

	s->t0 = s->t0 == UINT64_MAX ? 0 : s->t0;
	fputs("{\"traceEvents\": [\n", f);
	for (unsigned i = 0; i < s->nthr; i++)
		thread_events(f, s, &s->thr[i], &first);
	fprintf(f, "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": {\"library\": \"libpmu %s\", \"calls\": %"
		PRIu64 ", \"dropped\": %" PRIu64 ", \"folded\": %" PRIu64, pmu_version(), s->calls,
		s->dropped + s->folded, s->folded);
	if (pmu__emulated()) {	/* the counter tracks are QEMU's count */
		fputs(", \"emulated\": ", f);
		pmu__json_str(f, pmu__emulated());
	}
	fputs("}}\n", f);
	if (s->dropped)
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_TRACE: %" PRIu64 " region calls not traced: a thread keeps its "
			   "first calls only (PMU_TRACE_CALLS)\n", s->dropped);
	if (s->folded)
		pmu__print(PMU_PRINT_INFO, "libpmu: PMU_TRACE: %" PRIu64 " region calls not in the trace: the threads "
			   "that exited after the first 256 are folded into one record, their calls too\n", s->folded);
}

/* The writes, outside the lock: one cancelled there leaves a part of the file, and the copy freed. */
static void trace_file_freed(FILE *f, struct tsnap *s)
{
	pthread_cleanup_push(tsnap_free, s);
	trace_file(f, s);
	pthread_cleanup_pop(1);
}

int pmu__trace_write(FILE *f)
{
	struct tsnap s;
	int r = trace_copy(&s);

	if (r == 0)
		trace_file_freed(f, &s);
	else
		tsnap_free(&s);
	return r;
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

static int trace_fill(FILE *f, void *arg)
{
	(void)arg;
	return pmu__trace_write(f);
}

void pmu__trace_at_exit(void)
{
	const char *p = pmu__getenv("PMU_TRACE");
	char name[4096];

	if (trace_done || !p || !*p || (getpid() != trace_pid && !strstr(p, "%p")) || !traced())
		return;	/* nothing traced (the per-thread layer ended, or no region ran): no file */
	trace_done = true;
	if (!pmu__report_name(name, sizeof(name), p))
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_TRACE: the name is too long\n");
	else if (pmu__out_write(name, trace_fill, NULL) < 0)
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_TRACE: %s\n", pmu_errmsg());
}

static void trace_atexit(void)
{
	trace_pid = getpid();
	atexit(pmu__trace_at_exit);
}
