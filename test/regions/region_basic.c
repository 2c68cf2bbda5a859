/* SPDX-License-Identifier: MIT */
/*
 * Regions in one thread: calls and sums, nesting, recursion, interning by
 * pointer and by string, and bad use that fails without touching figures.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"


/* The csv report into a buffer. */
static char *report(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	CHECK_MSG(pmu_report(f, "csv") == 0, "%s", pmu_errmsg());
	fclose(f);
	return buf;
}

/* calls, ns, task-clock, page-faults of region name's total row; 0 if absent. */
static int row(const char *csv, const char *name, uint64_t *calls, uint64_t *ns, uint64_t *tc, uint64_t *pf)
{
	char key[256];
	const char *p;

	snprintf(key, sizeof(key), "\n%s,total,,", name);
	p = strstr(csv, key);
	if (!p)
		return 0;
	return sscanf(p + strlen(key), "%" SCNu64 ",%" SCNu64 ",%*f,%" SCNu64 ",%" SCNu64, calls, ns, tc, pf) == 4;
}

static void recurse(int n)
{
	CHECK(pmu_region_begin("recursive") == 0);
	if (n > 1)
		recurse(n - 1);
	else
		t_touch_pages(100);
	CHECK(pmu_region_end("recursive") == 0);
}

int main(void)
{
	uint64_t calls, ns, tc, pf, calls2, ns2, tc2, pf2;
	long pages = t_scale(1000);
	char buf[64], *csv, *csv2;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK(pmu_region_end("none") == -EINVAL);
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());

	/* Calls add up, and so do the events between begin and end. */
	for (int i = 0; i < 10; i++) {
		CHECK(pmu_region_begin("outer") == 0);
		CHECK(pmu_region_begin("inner") == 0);
		t_touch_pages(pages);
		CHECK(pmu_region_end("inner") == 0);
		CHECK(pmu_region_end("outer") == 0);
	}
	csv = report();
	CHECK_MSG(row(csv, "inner", &calls, &ns, &tc, &pf), "%s", csv);
	CHECK_EQ(calls, 10);
	CHECK_MSG(pf >= 10 * (uint64_t)pages && pf < 10 * (uint64_t)pages * 2,
		  "inner page-faults %" PRIu64, pf);
	CHECK(ns > 0 && tc > 0);
	CHECK(row(csv, "outer", &calls2, &ns2, &tc2, &pf2));
	CHECK_EQ(calls2, 10);
	CHECK(pf2 >= pf && ns2 >= ns && tc2 >= tc);	/* outer includes inner */
	CHECK(strncmp(csv, "region,thread,tid,calls,ns,ns_per_call,task-clock,page-faults,ns_min,", 69) == 0);
	free(csv);

	/* The same name through another pointer is the same region; a reused buffer is not. */
	snprintf(buf, sizeof(buf), "%s", "inner");
	CHECK(pmu_region_begin(buf) == 0);
	CHECK(pmu_region_end("inner") == 0);
	snprintf(buf, sizeof(buf), "%s", "other");
	CHECK(pmu_region_begin(buf) == 0);
	snprintf(buf, sizeof(buf), "%s", "third");
	CHECK(pmu_region_begin(buf) == 0);
	CHECK(pmu_region_end("third") == 0);
	CHECK(pmu_region_end("other") == 0);
	csv = report();
	CHECK(row(csv, "inner", &calls, &ns, &tc, &pf) && calls == 11);
	CHECK(row(csv, "other", &calls, &ns, &tc, &pf) && calls == 1);
	CHECK(row(csv, "third", &calls, &ns, &tc, &pf) && calls == 1);
	free(csv);

	/* Recursion: every call counts, the events once (the outermost). */
	recurse(5);
	csv = report();
	CHECK(row(csv, "recursive", &calls, &ns, &tc, &pf));
	CHECK_EQ(calls, 5);
	CHECK_MSG(pf >= 100 && pf < 200, "recursive page-faults %" PRIu64, pf);
	free(csv);

	/* Bad use fails with a message and changes no figure. */
	csv = report();
	CHECK(pmu_region_begin(NULL) == -EINVAL);
	CHECK(pmu_region_end(NULL) == -EINVAL);
	CHECK(pmu_region_begin("") == -EINVAL);
	char long_name[300];
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	CHECK(pmu_region_begin(long_name) == -ENAMETOOLONG);
	CHECK(pmu_region_end("outer") == -EINVAL);		/* nothing open */
	CHECK_MSG(strstr(pmu_errmsg(), "outer") && strstr(pmu_errmsg(), "without"), "%s", pmu_errmsg());
	CHECK(pmu_region_end("never-seen") == -EINVAL);
	CHECK(pmu_region_begin("outer") == 0);
	CHECK(pmu_region_begin("inner") == 0);
	CHECK(pmu_region_end("outer") == -EINVAL);		/* inner is the innermost */
	CHECK_MSG(strstr(pmu_errmsg(), "\"inner\""), "%s", pmu_errmsg());
	CHECK(pmu_region_end("never-seen") == -EINVAL);
	CHECK(pmu_region_end("inner") == 0);
	/* Registered but not open here: said so, not blamed on the region that is open. */
	CHECK(pmu_region_end("inner") == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "inner: pmu_region_end() of a region not open in this thread") &&
		  !strstr(pmu_errmsg(), "\"outer\""), "%s", pmu_errmsg());
	CHECK(pmu_region_end("outer") == 0);
	csv2 = report();
	CHECK(row(csv2, "outer", &calls, &ns, &tc, &pf) && calls == 11);
	CHECK(row(csv2, "inner", &calls, &ns, &tc, &pf) && calls == 12);
	CHECK(strstr(csv2, "never-seen") == NULL);
	free(csv);
	free(csv2);

	/* Too deep. */
	int depth = 0, r;
	while ((r = pmu_region_begin("deep")) == 0 && depth < 1000)
		depth++;
	CHECK(r == -ENOSPC);
	CHECK(depth >= 16 && depth < 1000);
	for (int i = 0; i < depth; i++)
		CHECK(pmu_region_end("deep") == 0);
	CHECK(pmu_region_end("deep") == -EINVAL);
	csv = report();
	CHECK(row(csv, "deep", &calls, &ns, &tc, &pf) && calls == (uint64_t)depth);
	free(csv);

	/* Many names (more than 0.7's 256): the ones before keep working (region_names tests 10^5 and the cap). */
	for (int names = 0; names < 1000; names++) {
		snprintf(buf, sizeof(buf), "r%d", names);
		CHECK_MSG((r = pmu_region_begin(buf)) == 0 && pmu_region_end(buf) == 0, "%s: %s", buf, pmu_errmsg());
	}
	CHECK(pmu_region_begin("r0") == 0 && pmu_region_end("r0") == 0);
	csv = report();
	CHECK(row(csv, "r0", &calls, &ns, &tc, &pf) && calls == 2);
	CHECK(row(csv, "outer", &calls, &ns, &tc, &pf) && calls == 11);
	free(csv);

	CHECK(pmu_report(stdout, "xml") == -EINVAL);
	CHECK(pmu_report(NULL, "csv") == -EINVAL);
	CHECK(pmu_thread_fini() == 0);
	CHECK(pmu_report(stdout, "csv") == -EINVAL);
	T_DONE();
}
