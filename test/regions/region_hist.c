/* SPDX-License-Identifier: MIT */
/*
 * Regions' histograms: off by default (-ENOENT, saying how to switch on),
 * the switch and its refusals; with them, every outermost call in the
 * histogram (counts equal spans, per thread and in total, exited threads
 * folded included); quantiles of a region whose page faults per call are
 * known; the tail of a region whose slow calls fault 200 pages against 1,
 * checked by what is exact in it (faults compared as ratios: a page faults
 * more than once under TSan).
 * Page faults and counts are compared; times only through which calls are
 * slow by a factor of 50 or more, with room for a few preempted fast ones.
 * Snapshots taken against a thread adding calls hold its calls exactly.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "pmu.h"
#include "test.h"
#include "results_index.h"
#include "report_capture.h"
#include "regions/results.h"
#include "parse/json.h"

#define PF 2	/* page-faults: figure 2 (event 1; task-clock is event 0) */
#define CHURN 300	/* short threads: past the 256 exited the thread layer keeps, so some are folded */

static void *one_call(void *arg)
{
	(void)arg;
	CHECK(pmu_region_begin("churn") == 0);
	t_touch_pages(2);
	CHECK(pmu_region_end("churn") == 0);
	return NULL;
}

/* Every outermost call of region name is in its histograms, in each thread and in total. */
static void check_counts(const struct pmu_results *r, const char *name)
{
	unsigned id = region_index(r, name);

	for (int k = -1; id != ~0u && k < (int)pmu_results_threads(r); k++) {
		const struct pmu__rent *e = pmu__results_ent(r, k, id);

		if (!e->calls)
			continue;
		CHECK_MSG(e->dist, "%s, thread %d: no histograms", name, k);
		for (unsigned f = 0; e->dist && f <= r->n; f++)
			CHECK_MSG(pmu__shist_total(&e->dist[f]) == e->spans, "%s, thread %d, figure %u: %llu in the "
				  "histogram, %llu calls", name, k, f,
				  (unsigned long long)pmu__shist_total(&e->dist[f]), (unsigned long long)e->spans);
	}
}

static int stop;

static void *hot(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		CHECK(pmu_region_begin("hot") == 0);
		CHECK(pmu_region_end("hot") == 0);
	}
	return NULL;
}

/* Snapshots while a thread adds calls as fast as it can: each copy's histograms hold exactly its calls. */
static void check_live(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, hot, NULL) == 0);
	for (int i = 0; i < 50; i++) {
		struct pmu_results *r = pmu_results_take();

		CHECK_MSG(r, "%s", pmu_errmsg());
		if (r)
			check_counts(r, "hot");
		pmu_results_free(r);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	CHECK(pthread_join(t, NULL) == 0);
}

static void check_off(void)
{
	struct pmu_results *r;
	double v;

	CHECK(pmu_region_begin("before") == 0 && pmu_region_end("before") == 0);
	r = pmu_results_take();
	CHECK_MSG(r, "%s", pmu_errmsg());
	CHECK(pmu_results_quantile(r, 0, -1, 0, 0.5, &v) == -ENOENT);
	CHECK_MSG(strstr(pmu_errmsg(), "before") && strstr(pmu_errmsg(), "PMU_HISTOGRAMS=1"), "%s", pmu_errmsg());
	pmu_results_free(r);
	CHECK(pmu_region_histograms(2) == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "pmu_region_histograms: 2"), "%s", pmu_errmsg());
}

static void check_bad(const struct pmu_results *r, unsigned id)
{
	uint64_t calls;
	double v, t, o;

	CHECK(pmu_results_quantile(NULL, id, -1, 0, 0.5, &v) == -EINVAL);
	CHECK(pmu_results_quantile(r, id, -1, 0, 0, &v) == -EINVAL);
	CHECK(pmu_results_quantile(r, id, -1, 0, NAN, &v) == -EINVAL);
	CHECK(pmu_results_quantile(r, id, -1, 0, 1.5, &v) == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "q 1.5"), "%s", pmu_errmsg());
	CHECK(pmu_results_quantile(r, id, -1, 3, 0.5, &v) == -EINVAL);
	CHECK(pmu_results_tail(r, id, -1, 1, &calls, &t, &o) == 0);
	CHECK(pmu_results_quantile(r, id, 99999, 0, 0.5, &v) == -EINVAL);
	CHECK(pmu_results_quantile(r, 999, -1, 0, 0.5, &v) == -EINVAL);
	CHECK(pmu_results_quantile(r, id, -1, 0, 0.5, NULL) == -EINVAL);
	CHECK(pmu_results_tail(r, id, -1, 2, &calls, &t, &o) == -EINVAL);
	CHECK(pmu_results_tail(r, id, -1, 0, NULL, &t, &o) == -EINVAL);
}

/*
 * The tail of region name's event ev recomputed from the json report's own
 * buckets (ns's, with each figure's sum per bucket), apart from the library's
 * code: from the slowest bucket down until at least 1% of the calls are in,
 * its calls and the event's means in and out of it. false when not found.
 */
static bool tail_from_json(const char *name, unsigned ev, uint64_t *calls, double *tail, double *rest)
{
	char *text = t_report("json");
	struct pmu__json *doc = NULL;
	const struct pmu__json *regs, *b = NULL;
	double n = 0, in = 0, st = 0, sall = 0, x;

	if (pmu__json_parse("report", text, strlen(text), &doc) == 0 && (regs = pmu__json_get(doc, "regions")))
		for (size_t i = 0; i < regs->n; i++)
			if (!strcmp(pmu__json_get(&regs->v[i], "name")->s, name) && pmu__json_get(&regs->v[i], "dist"))
				b = pmu__json_get(pmu__json_get(pmu__json_get(&regs->v[i], "dist"), "ns"), "buckets");
	for (size_t k = 0; b && k < b->n; k++)
		if (pmu__json_double(&b->v[k].v[1], &x) && (n += x, pmu__json_double(&b->v[k].v[3 + ev], &x)))
			sall += x;
	for (size_t k = b ? b->n : 0; k > 0 && in < ceil(n / 100); k--)
		if (pmu__json_double(&b->v[k - 1].v[1], &x) && (in += x, pmu__json_double(&b->v[k - 1].v[3 + ev], &x)))
			st += x;
	*calls = (uint64_t)in;
	*tail = in ? st / in : NAN;
	*rest = n > in ? (sall - st) / (n - in) : NAN;
	pmu__json_free(doc);
	free(text);
	return b != NULL;
}

int main(void)
{
	struct pmu_region_result g;
	struct pmu_results *r;
	pthread_t tid[CHURN];
	double p50, p999, tail, rest, jtail, jrest;
	uint64_t calls, jcalls;
	unsigned id;

	if (getenv("PMU_EVENTS") || getenv("PMU_HISTOGRAMS"))
		T_SKIP("PMU_EVENTS or PMU_HISTOGRAMS is set in the environment: the test sets them up itself");
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	check_off();
	CHECK(pmu_region_histograms(1) == 0);
	/* 990 calls fault a page in, 10 fault 200 pages: those are the slowest 1%, by far. */
	for (int i = 0; i < 1000; i++) {
		CHECK(pmu_region_begin("mixed") == 0);
		t_touch_pages(i % 100 == 99 ? 200 : 1);
		CHECK(pmu_region_end("mixed") == 0);
	}
	check_live();
	for (int i = 0; i < CHURN; i++)
		CHECK(pthread_create(&tid[i], NULL, one_call, NULL) == 0 && pthread_join(tid[i], NULL) == 0);
	r = pmu_results_take();
	CHECK_MSG(r, "%s", pmu_errmsg());
	if (!r)
		T_DONE();
	id = region_index(r, "mixed");
	check_counts(r, "mixed");
	check_counts(r, "churn");
	CHECK(pmu_results_quantile(r, id, -1, PF, 0.5, &p50) == 0 && pmu_results_quantile(r, id, 0, PF, 0.999,
											    &p999) == 0);
	/* A page is a fault natively, a few under the sanitizers' shadow memory: compared as ratios. */
	CHECK_MSG(p50 >= 1 && p999 >= 100 * p50, "page faults: p50 %g, p99.9 %g", p50, p999);
	CHECK_MSG(pmu_results_tail(r, id, -1, PF - 1, &calls, &tail, &rest) == 0, "%s", pmu_errmsg());
	/*
	 * Which calls are slowest is the machine's (a preempted fast call may be
	 * among them, under emulation often): what is exact is which buckets hold
	 * them, recomputed here from the report's buckets, and the calls in all.
	 */
	g.size = sizeof(g);
	CHECK(pmu_results_get(r, id, -1, &g) == 0 && g.calls == 1000);
	CHECK_MSG(tail_from_json("mixed", PF - 1, &jcalls, &jtail, &jrest), "no buckets of \"mixed\" in the json");
	CHECK_MSG(calls >= 10 && calls < 1000 && calls == jcalls && tail == jtail && rest == jrest,
		  "tail: %llu calls, %g page faults against %g; from the buckets: %llu calls, %g against %g",
		  (unsigned long long)calls, tail, rest, (unsigned long long)jcalls, jtail, jrest);
	printf("the slowest 1%% of 1,000 calls (%llu): %g page faults a call against %g\n", (unsigned long long)calls,
	       tail, rest);
	id = region_index(r, "churn");
	CHECK(pmu_results_quantile(r, id, -1, PF, 0.5, &p50) == 0 && p50 >= 2);
	check_bad(r, id);
	CHECK(pmu_results_quantile(r, region_index(r, "before"), -1, 0, 0.5, &p50) == -ENOENT);
	pmu_results_free(r);
	pmu_thread_fini();
	T_DONE();
}
