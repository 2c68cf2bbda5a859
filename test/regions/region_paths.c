/* SPDX-License-Identifier: MIT */
/*
 * Regions as call paths, with total and self:
 *   two_parents  a "leaf" once under "a" and once, three times the work, under "b": two paths, each
 *                with its own figures (0.7 gave one row and the parent "a"); a's self is its total
 *                less its leaf's
 *   recursion    a region nested directly in itself folds into its path; nested through another
 *                it is a path of its own, and the flat view counts its figures once
 *   alternating  one name under two parents in turn, by name and by handle, in two threads
 *   sums         the selves of every path add up to the totals of the top paths, per figure
 *   api          pmu_results_path() gives what the json does
 *   table        the table's call path section, indented
 */
#include <pmu.h>
#include <pthread.h>
#include <stdbool.h>

#include "report_capture.h"

struct fig {
	uint64_t calls, ns, self_ns, pf, self_pf;
};

/* The json report's path names (as json: "\"a\", \"leaf\"") into *g; false when absent. */
static bool path(const char *json, const char *names, struct fig *g)
{
	char key[256];
	const char *p;
	unsigned long long v[5];

	snprintf(key, sizeof(key), "{\"path\": [%s], ", names);
	p = strstr(json, key);
	memset(g, 0, sizeof(*g));
	if (!p || sscanf(p + strlen(key), "\"calls\": %llu, \"ns\": %llu, \"self_ns\": %llu, \"counts\": "
			 "{\"page-faults\": %llu}, \"self_counts\": {\"page-faults\": %llu}",
			 &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
		return false;
	*g = (struct fig){ v[0], v[1], v[2], v[3], v[4] };
	return true;
}

static void touch(long pages, const char *name)
{
	pmu_region_begin(name);
	t_touch_pages(pages);
	pmu_region_end(name);
}

static void two_parents(const char *json)
{
	struct fig la, lb, a, b, m, r, x;

	CHECK_MSG(path(json, "\"main\", \"a\", \"leaf\"", &la) && path(json, "\"main\", \"b\", \"leaf\"", &lb), "%s",
		  json);
	CHECK(path(json, "\"main\", \"a\"", &a) && path(json, "\"main\", \"b\"", &b) && path(json, "\"main\"", &m));
	CHECK(path(json, "\"main\", \"r\"", &r) && path(json, "\"main\", \"x\"", &x));
	CHECK(la.calls == 1 && lb.calls == 1 && a.calls == 1 && b.calls == 1 && m.calls == 1);
	CHECK_MSG(la.pf >= 100 && lb.pf >= 300 && lb.pf < la.pf * 4, "leaf under a %llu, under b %llu page faults",
		  (unsigned long long)la.pf, (unsigned long long)lb.pf);
	CHECK(la.self_pf == la.pf && la.self_ns == la.ns);	/* nothing inside */
	CHECK_EQ(a.self_pf, a.pf - la.pf);
	CHECK_EQ(a.self_ns, a.ns - la.ns);
	CHECK(a.self_pf >= 50 && b.self_pf < 50);
	CHECK_EQ(m.self_pf, m.pf - a.pf - b.pf - r.pf - x.pf);	/* r and x: recursion() */
	printf("two_parents: leaf under a %llu, under b %llu page faults; a total %llu, self %llu\n",
	       (unsigned long long)la.pf, (unsigned long long)lb.pf, (unsigned long long)a.pf,
	       (unsigned long long)a.self_pf);
}

static void recursion(const char *json, struct pmu_results *r)
{
	struct pmu_region_result x = { .size = sizeof(x) };
	const char *const *names;
	struct fig f, g;
	unsigned n = pmu_results_regions(r, &names), i;

	CHECK(path(json, "\"main\", \"r\"", &f) && f.calls == 3);
	CHECK(!strstr(json, "\"r\", \"r\""));
	CHECK(path(json, "\"main\", \"x\"", &f) && path(json, "\"main\", \"x\", \"y\", \"x\"", &g));
	CHECK(f.calls == 1 && g.calls == 1 && g.pf >= 10 && f.pf >= g.pf);
	for (i = 0; i < n && strcmp(names[i], "x"); i++)
		;
	CHECK(i < n && pmu_results_get(r, i, -1, &x) == 0);
	/* the flat x: two calls, its figures the outer one's (the inner is inside it) */
	CHECK_EQ(x.calls, 2);
	CHECK_EQ(x.sum[0], f.pf);
	CHECK_EQ(x.ns, f.ns);
}

static int h_leaf;

static void *alternating(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++) {
		pmu_region_begin("p");
		pmu_region_begin("s");
		pmu_region_end("s");
		pmu_region_enter(h_leaf);
		pmu_region_exit(h_leaf);
		pmu_region_end("p");
		pmu_region_begin("q");
		pmu_region_begin("s");
		pmu_region_end("s");
		pmu_region_enter(h_leaf);
		pmu_region_exit(h_leaf);
		pmu_region_end("q");
	}
	return NULL;
}

/* pmu_results_path() against the json: leaf's path under a, and the refusals. */
static void api(struct pmu_results *r, const char *json)
{
	struct pmu_path_result p = { .size = sizeof(p) }, up = { .size = sizeof(up) };
	const char *const *names;
	unsigned np = pmu_results_paths(r), found = 0;
	struct fig la;

	pmu_results_regions(r, &names);
	CHECK(path(json, "\"main\", \"a\", \"leaf\"", &la));
	for (unsigned i = 0; i < np; i++) {
		CHECK(pmu_results_path(r, i, -1, &p) == 0 && p.up < (int)i);
		if (strcmp(names[p.region], "leaf") || p.up < 0)
			continue;
		CHECK(pmu_results_path(r, (unsigned)p.up, -1, &up) == 0);
		if (strcmp(names[up.region], "a"))
			continue;
		found++;
		CHECK(p.depth == 2 && p.calls == la.calls && p.ns == la.ns && p.self_ns == la.self_ns);
		CHECK(p.nevents == 1 && p.sum[0] == la.pf && p.self[0] == la.self_pf);
		CHECK(pmu_results_path(r, i, 0, &p) == 0 && p.calls == 1);	/* main's thread */
	}
	CHECK_EQ(found, 1);
	CHECK(pmu_results_path(r, np, -1, &p) == -EINVAL && strstr(pmu_errmsg(), "out of range"));
	CHECK(pmu_results_path(r, 0, 7, &p) == -EINVAL);
	p.size = 8;
	CHECK(pmu_results_path(r, 0, -1, &p) == -EINVAL && strstr(pmu_errmsg(), "struct pmu_path_result"));
	CHECK(pmu_results_path(NULL, 0, -1, &p) == -EINVAL && pmu_results_paths(NULL) == 0);
}

/* Every path's self, summed, against the top paths' totals: ns and page faults. */
static void sums(struct pmu_results *r, const char *json)
{
	unsigned long long self[2] = { 0, 0 }, top[2] = { 0, 0 };
	const char *p = json;
	struct fig g;

	(void)r;
	while ((p = strstr(p, "{\"path\": ["))) {
		char names[200];
		const char *q = strchr(p, ']');
		size_t len = q ? (size_t)(q - p) - 10 : 0;

		if (!q || len >= sizeof(names))
			break;
		memcpy(names, p + 10, len);
		names[len] = '\0';
		CHECK(path(p, names, &g));
		self[0] += g.self_ns;
		self[1] += g.self_pf;
		if (!strchr(names, ',')) {
			top[0] += g.ns;
			top[1] += g.pf;
		}
		p = q;
	}
	CHECK_MSG(self[0] == top[0] && self[1] == top[1], "selves %llu ns, %llu page faults; tops %llu, %llu",
		  self[0], self[1], top[0], top[1]);
	printf("sums: every path's self adds up to the top paths' totals (%llu ns, %llu page faults)\n", top[0], top[1]);
}

int main(void)
{
	struct pmu_results *r;
	struct fig f;
	pthread_t th;
	char *json, *table;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK_MSG(pmu_thread_init("page-faults") == 0, "%s", pmu_errmsg());
	h_leaf = pmu_region_register("h");
	pmu_region_begin("main");
	pmu_region_begin("a");
	t_touch_pages(50);
	touch(100, "leaf");
	pmu_region_end("a");
	pmu_region_begin("b");
	touch(300, "leaf");
	pmu_region_end("b");
	pmu_region_begin("r");
	pmu_region_begin("r");
	touch(10, "r");
	pmu_region_end("r");
	pmu_region_end("r");
	pmu_region_begin("x");
	pmu_region_begin("y");
	touch(10, "x");
	pmu_region_end("y");
	pmu_region_end("x");
	pmu_region_end("main");
	CHECK(pthread_create(&th, NULL, alternating, NULL) == 0);
	alternating(NULL);
	pthread_join(th, NULL);

	json = t_report("json");
	r = pmu_results_take();
	CHECK_MSG(r != NULL, "%s", pmu_errmsg());
	two_parents(json);
	if (r)
		recursion(json, r);
	CHECK(path(json, "\"p\", \"s\"", &f) && f.calls == 200 && path(json, "\"q\", \"s\"", &f) && f.calls == 200);
	CHECK(path(json, "\"p\", \"h\"", &f) && f.calls == 200 && path(json, "\"q\", \"h\"", &f) && f.calls == 200);
	sums(r, json);
	if (r)
		api(r, json);
	table = t_report("table");
	CHECK_MSG(strstr(table, "\ncall paths: total and self") && strstr(table, "\n    leaf "), "%s", table);
	pmu_results_free(r);
	free(json);
	free(table);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
