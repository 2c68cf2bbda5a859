/* SPDX-License-Identifier: MIT */
/*
 * Reports taken while threads run regions: every report is a consistent
 * picture of each thread (a thread ends "a" before it begins "b", so its
 * calls of "a" are those of "b" or one more), calls never go back, and the
 * final totals are exact.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

#define NTHR 4

static int stop;	/* atomic */

static void *worker(void *arg)
{
	long *done = arg, n = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) || n < 10) {
		if (pmu_region_begin("a") || pmu_region_end("a") || pmu_region_begin("b") || pmu_region_end("b"))
			return (void *)1;
		n++;
	}
	*done = n;
	return NULL;
}

struct seen {
	int tid;
	uint64_t a, b;
};

/* Parses the csv rows of a and b per thread into s (up to NTHR + 1 threads). */
static int parse(char *csv, struct seen *s, int *ns)
{
	char *save, *line;

	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char reg[8], name[32];
		int tid, k;
		uint64_t calls;

		if (sscanf(line, "%7[^,],%31[^,],%d,%" SCNu64, reg, name, &tid, &calls) != 4)
			continue;	/* the header, the totals */
		for (k = 0; k < *ns && s[k].tid != tid; k++)
			;
		if (k == *ns) {
			if (*ns == NTHR + 1)
				return -1;
			s[(*ns)++] = (struct seen){ tid, 0, 0 };
		}
		if (!strcmp(reg, "a"))
			s[k].a = calls;
		else if (!strcmp(reg, "b"))
			s[k].b = calls;
	}
	return 0;
}

int main(void)
{
	pthread_t th[NTHR];
	long done[NTHR];
	struct seen last[NTHR + 1];
	int nlast = 0, reports = (int)t_scale(300);

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (int i = 0; i < NTHR; i++)
		CHECK(pthread_create(&th[i], NULL, worker, &done[i]) == 0);
	for (int r = 0; r < reports; r++) {
		struct seen s[NTHR + 1];
		int ns = 0;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(f && pmu_report(f, "csv") == 0);
		fclose(f);
		CHECK(parse(buf, s, &ns) == 0);
		free(buf);
		for (int k = 0; k < ns; k++) {
			CHECK_MSG(s[k].a == s[k].b || s[k].a == s[k].b + 1, "thread %d: a %" PRIu64 " b %" PRIu64,
				  s[k].tid, s[k].a, s[k].b);
			for (int j = 0; j < nlast; j++)
				if (last[j].tid == s[k].tid)
					CHECK(s[k].a >= last[j].a && s[k].b >= last[j].b);
		}
		memcpy(last, s, sizeof(s));
		nlast = ns;
		if (t_failures)
			break;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	long total = 0;
	for (int i = 0; i < NTHR; i++) {
		void *rv;

		CHECK(pthread_join(th[i], &rv) == 0 && rv == NULL);
		total += done[i];
	}
	/* Exited threads' figures stay for the report. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f && pmu_report(f, "csv") == 0);
	fclose(f);
	char key[64];
	snprintf(key, sizeof(key), "\na,total,,%ld,", total);
	CHECK_MSG(strstr(buf, key) != NULL, "want %s in\n%s", key + 1, buf);
	snprintf(key, sizeof(key), "\nb,total,,%ld,", total);
	CHECK_MSG(strstr(buf, key) != NULL, "want %s", key + 1);
	free(buf);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
