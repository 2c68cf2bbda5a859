/* SPDX-License-Identifier: MIT */
/*
 * The timeline (PMU_TRACE): every outermost region call of every thread,
 * written in Chrome's Trace Event Format by pmu_report(f, "trace"). Its
 * calls' deltas and durations add up exactly to the report's totals for
 * every region and thread, and no counter track holds two calls at once
 * (a region nested in another has a track of its own), and each call names
 * its call path; a thread's buffer keeps its first
 * PMU_TRACE_CALLS calls and counts the others as dropped, said in the file
 * and on stderr; without PMU_TRACE there is no trace, said.
 */
#include <pmu.h>
#include <pthread.h>
#include <stdlib.h>

#include "parse/json.h"
#include "report_capture.h"
#include "test.h"

static void *worker(void *arg)
{
	for (long i = 0; i < (long)arg; i++) {
		pmu_region_begin("outer");
		for (int k = 0; k < 3; k++) {
			char *m = malloc(1 << 15);

			pmu_region_begin("inner");
			if (m)
				memset(m, k, 1 << 15);
			free(m);
			pmu_region_end("inner");
		}
		pmu_region_begin("outer");	/* nested in itself: its figures are the outermost call's */
		pmu_region_end("outer");
		pmu_region_end("outer");
	}
	return NULL;
}

/* A number's text ("12.345" microseconds) as ns, exactly. */
static uint64_t ns_of(const struct pmu__json *v)
{
	unsigned long long us = 0, frac = 0;

	CHECK_MSG(v && v->type == PMU_JSON_NUMBER && sscanf(v->s, "%llu.%3llu", &us, &frac) == 2, "%s", v ? v->s : "-");
	return us * 1000 + frac;
}

/* The report's text, as format, parsed. */
static struct pmu__json *report(const char *format)
{
	struct pmu__json *doc = NULL;
	char *buf = t_report(format);

	CHECK_MSG(pmu__json_parse(format, buf, strlen(buf), &doc) == 0, "%s", pmu_errmsg());
	free(buf);
	return doc;
}

/* Per region and thread of the report, the trace's sums equal its figures. */
static void sums_match(const struct pmu__json *rep, const struct pmu__json *tr, unsigned *checked)
{
	const struct pmu__json *regs = pmu__json_get(rep, "regions"), *ev = pmu__json_get(tr, "traceEvents");

	for (size_t i = 0; regs && i < regs->n; i++) {
		const struct pmu__json *th = pmu__json_get(&regs->v[i], "threads");
		const char *name = pmu__json_get(&regs->v[i], "name")->s;

		for (size_t k = 0; th && k < th->n; k++) {
			uint64_t tid, ns = 0, calls = 0, spans, want_ns, tc = 0, pf = 0, want_tc, want_pf, paths_ok = 0;
			const struct pmu__json *counts = pmu__json_get(&th->v[k], "counts");

			pmu__json_u64(pmu__json_get(&th->v[k], "tid"), &tid);
			pmu__json_u64(pmu__json_get(&th->v[k], "spans"), &spans);
			pmu__json_u64(pmu__json_get(&th->v[k], "ns"), &want_ns);
			pmu__json_u64(pmu__json_get(counts, "task-clock"), &want_tc);
			pmu__json_u64(pmu__json_get(counts, "page-faults"), &want_pf);
			for (size_t e = 0; ev && e < ev->n; e++) {
				const struct pmu__json *x = &ev->v[e], *args = pmu__json_get(x, "args"), *path;
				uint64_t t, v;

				if (strcmp(pmu__json_get(x, "ph")->s, "X") || strcmp(pmu__json_get(x, "name")->s, name) ||
				    !pmu__json_u64(pmu__json_get(x, "tid"), &t) || t != tid)
					continue;
				calls++;
				paths_ok += (path = pmu__json_get(args, "path")) && path->type == PMU_JSON_STRING &&
					    !strcmp(path->s, strcmp(name, "inner") ? name : "outer;inner");
				ns += ns_of(pmu__json_get(x, "dur"));
				tc += pmu__json_u64(pmu__json_get(args, "task-clock"), &v) ? v : 0;
				pf += pmu__json_u64(pmu__json_get(args, "page-faults"), &v) ? v : 0;
			}
			CHECK_MSG(paths_ok == calls, "%s: %llu of %llu calls with their call path (\"outer;inner\")", name,
				  (unsigned long long)paths_ok, (unsigned long long)calls);
			CHECK_MSG(calls == spans && ns == want_ns && tc == want_tc && pf == want_pf,
				  "%s, thread %llu: trace %llu calls, %llu ns, %llu, %llu; report %llu, %llu, %llu, %llu",
				  name, (unsigned long long)tid, (unsigned long long)calls, (unsigned long long)ns,
				  (unsigned long long)tc, (unsigned long long)pf, (unsigned long long)spans,
				  (unsigned long long)want_ns, (unsigned long long)want_tc, (unsigned long long)want_pf);
			(*checked)++;
		}
	}
}

/*
 * Each counter track steps up at a call's begin and back to 0 at its end
 * (the writer puts the two steps side by side): the calls on one track
 * never overlap, or a nested call's end would show 0 inside the outer one.
 */
static void tracks_apart(const struct pmu__json *tr)
{
	const struct pmu__json *ev = pmu__json_get(tr, "traceEvents");
	unsigned steps = 0;

	for (size_t a = 0; ev && a + 1 < ev->n; a++) {
		const struct pmu__json *x = &ev->v[a];
		uint64_t b0, e0;

		if (strcmp(pmu__json_get(x, "ph")->s, "C"))
			continue;
		b0 = ns_of(pmu__json_get(x, "ts"));
		e0 = ns_of(pmu__json_get(&ev->v[++a], "ts"));
		steps++;
		for (size_t b = a + 1; b + 1 < ev->n; b++) {
			const struct pmu__json *y = &ev->v[b];
			uint64_t b1, e1;

			if (strcmp(pmu__json_get(y, "ph")->s, "C") ||
			    strcmp(pmu__json_get(y, "name")->s, pmu__json_get(x, "name")->s)) {
				continue;
			}
			b1 = ns_of(pmu__json_get(y, "ts"));
			e1 = ns_of(pmu__json_get(&ev->v[++b], "ts"));
			CHECK_MSG(e0 <= b1 || e1 <= b0, "track %s: calls %llu..%llu and %llu..%llu overlap",
				  pmu__json_get(x, "name")->s, (unsigned long long)b0, (unsigned long long)e0,
				  (unsigned long long)b1, (unsigned long long)e1);
		}
	}
	CHECK(steps > 0);
}

int main(void)
{
	struct pmu__json *rep, *tr;
	pthread_t t[3];
	unsigned checked = 0;
	uint64_t v;

	setenv("PMU_TRACE", "/dev/null", 1);	/* on; written here by pmu_report() */
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (long i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(4 * (i + 1))) == 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	worker((void *)2L);
	rep = report("json");
	tr = report("trace");
	if (rep && tr) {
		sums_match(rep, tr, &checked);
		tracks_apart(tr);
		CHECK_MSG(checked == 8, "%u region-thread pairs checked, not 8", checked);
		CHECK(pmu__json_u64(pmu__json_get(pmu__json_get(tr, "otherData"), "dropped"), &v) && v == 0);
	}
	pmu__json_free(rep);
	pmu__json_free(tr);
	pmu_thread_fini();
	/* a thread keeps its first 3 calls: the 7 others counted, in the file */
	setenv("PMU_TRACE_CALLS", "3", 1);
	CHECK(pmu_thread_init("task-clock,page-faults") == 0);
	for (int i = 0; i < 10; i++) {
		pmu_region_begin("short");
		pmu_region_end("short");
	}
	tr = report("trace");
	CHECK(tr && pmu__json_u64(pmu__json_get(pmu__json_get(tr, "otherData"), "dropped"), &v) && v == 7 &&
	      pmu__json_u64(pmu__json_get(pmu__json_get(tr, "otherData"), "calls"), &v) && v == 3);
	pmu__json_free(tr);
	pmu_thread_fini();
	/* without PMU_TRACE: none, said */
	unsetenv("PMU_TRACE");
	CHECK(pmu_thread_init("task-clock") == 0);
	pmu_region_begin("r");
	pmu_region_end("r");
	CHECK(pmu_report(stdout, "trace") == -EINVAL && strstr(pmu_errmsg(), "no trace: set PMU_TRACE"));
	pmu_thread_fini();
	T_DONE();
}
