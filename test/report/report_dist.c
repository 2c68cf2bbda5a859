/* SPDX-License-Identifier: MIT */
/*
 * The regions' distributions in every report format: none of it without
 * histograms; with them, the table's section and tail line, csv's columns
 * (as many cells in each row as headings), json's quantiles, buckets (their
 * calls add up to the calls, their sums to the figures' sums, exactly) and
 * tail, and the HTML page's chart. A hostile region name stays escaped.
 */
#include <pthread.h>
#include <stdlib.h>

#include "report_capture.h"
#include "parse/json.h"

#define HOSTILE "a,\"b\"\n<i>"

static void calls(const char *name, int n)
{
	for (int i = 0; i < n; i++) {
		pmu_region_begin(name);
		t_touch_pages(i % 50 == 49 ? 40 : 1);
		pmu_region_end(name);
	}
}

/* The cells of the csv record at *p (quoted cells may hold newlines); *p moves to the next record. */
static unsigned fields(const char **p)
{
	unsigned n = 1;
	bool q = false;

	for (; **p && (**p != '\n' || q); (*p)++) {
		if (**p == '"')
			q = !q;
		n += **p == ',' && !q;
	}
	*p += **p == '\n';
	return n;
}

static void check_off(void)
{
	char *t = t_report("table"), *c = t_report("csv"), *j = t_report("json"), *h = t_report("html");

	CHECK(t && !strstr(t, "distributions") && !strstr(t, "slowest"));
	CHECK(c && !strstr(c, "p50") && !strstr(c, "tail_calls"));
	CHECK(j && !strstr(j, "\"dist\"") && !strstr(j, "\"tail\""));
	CHECK(h && !strstr(h, "Distributions"));
	free(t), free(c), free(j), free(h);
}

/* The json total of region "work": its buckets against its calls and sums. */
static void check_json(const char *text)
{
	const struct pmu__json *regs, *w = NULL, *ns, *b;
	struct pmu__json *root;
	uint64_t calls, sum, pf, x, nb = 0, ns_sum = 0, pf_sum = 0;

	CHECK_MSG(pmu__json_parse("report", text, strlen(text), &root) == 0, "%s", pmu_errmsg());
	regs = pmu__json_get(root, "regions");
	for (size_t i = 0; regs && i < regs->n; i++)
		if (!strcmp(pmu__json_get(&regs->v[i], "name")->s, "work"))
			w = &regs->v[i];
	CHECK(w && pmu__json_u64(pmu__json_get(w, "spans"), &calls) && pmu__json_u64(pmu__json_get(w, "ns"), &sum));
	CHECK(w && pmu__json_u64(pmu__json_get(pmu__json_get(w, "counts"), "page-faults"), &pf));
	ns = w ? pmu__json_get(pmu__json_get(w, "dist"), "ns") : NULL;
	b = pmu__json_get(ns, "buckets");
	CHECK(ns && pmu__json_get(ns, "p99.9") && pmu__json_get(pmu__json_get(w, "dist"), "page-faults"));
	for (size_t k = 0; b && k < b->n; k++) {
		CHECK(b->v[k].n == 5);	/* index, calls, then the sums: ns, task-clock, page-faults */
		nb += b->v[k].n == 5 && pmu__json_u64(&b->v[k].v[1], &x) ? x : 0;
		ns_sum += b->v[k].n == 5 && pmu__json_u64(&b->v[k].v[2], &x) ? x : 0;
		pf_sum += b->v[k].n == 5 && pmu__json_u64(&b->v[k].v[4], &x) ? x : 0;
	}
	CHECK_MSG(nb == calls && ns_sum == sum && pf_sum == pf, "buckets: %llu calls, %llu ns, %llu faults; "
		  "figures: %llu, %llu, %llu", (unsigned long long)nb, (unsigned long long)ns_sum,
		  (unsigned long long)pf_sum, (unsigned long long)calls, (unsigned long long)sum,
		  (unsigned long long)pf);
	CHECK(pmu__json_u64(pmu__json_get(pmu__json_get(w, "tail"), "calls"), &x) && x >= calls / 100);
	CHECK(pmu__json_get(pmu__json_get(pmu__json_get(w, "tail"), "page-faults"), "rest"));
	pmu__json_free(root);
}

int main(void)
{
	char *t, *c, *j, *h;

	if (getenv("PMU_EVENTS") || getenv("PMU_HISTOGRAMS"))
		T_SKIP("PMU_EVENTS or PMU_HISTOGRAMS is set in the environment: the test sets them up itself");
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	calls("work", 10);
	check_off();
	pmu_thread_fini();
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	CHECK(pmu_region_histograms(1) == 0);
	calls("work", 500);
	calls(HOSTILE, 3);
	t = t_report("table"), c = t_report("csv"), j = t_report("json"), h = t_report("html");
	printf("%s\n%s", t, c);
	CHECK(t && strstr(t, "distributions per call") && strstr(t, "slowest 1% of work: "));
	CHECK(t && strstr(t, "page-faults"));
	CHECK(c && strstr(c, ",ns_p50,ns_p90,ns_p99,ns_p99.9,") && strstr(c, ",tail_calls,tail_ns_from,tail(ns),"));
	for (const char *l = c, *hd = c, *r = l; c && *l; l = r) {
		unsigned want = fields(&(const char *){ hd }), got = fields(&r);

		CHECK_MSG(got == want, "%u cells, %u headings: %.80s", got, want, l);
	}
	if (j)
		check_json(j);
	CHECK(h && strstr(h, "<h2>Distributions</h2>") && strstr(h, "<svg class=\"hist\"") && strstr(h, "&lt;i&gt;"));
	CHECK(h && !strstr(h, "<i>"));
	free(t), free(c), free(j), free(h);
	pmu_thread_fini();
	T_DONE();
}
