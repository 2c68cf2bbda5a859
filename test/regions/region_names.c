/* SPDX-License-Identifier: MIT */
/*
 * No limit on region names that a program meets:
 *   six_hundred  600 distinct names in a thread (0.7 refused 344 of them), each in the results
 *   many         10^5 names, each begun twice in two threads: every call counted, and the
 *                second round allocates nothing (a name's first use may, later ones not)
 *   cap          the documented cap (2^20 names) is refused with a message naming the name,
 *                and names interned before keep working
 */
#include <malloc.h>
#include <pmu.h>
#include <pthread.h>

#include "test.h"

#define MANY 100000
#define CAP (1L << 20)

static long many;

/* Begins and ends regions prefix0.. prefix(n-1) once each; the failures. */
static int round_of(const char *prefix, long n)
{
	char name[32];
	int bad = 0;

	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%ld", prefix, i);
		if (pmu_region_begin(name) != 0 || pmu_region_end(name) != 0) {
			if (!bad++)
				fprintf(stderr, "%s: %s\n", name, pmu_errmsg());
		}
	}
	return bad;
}

/* The calls of every region named prefix*, and how many such regions, in the results' total. */
static uint64_t calls_of(const char *prefix, unsigned *regions)
{
	struct pmu_results *r = pmu_results_take();
	const char *const *names;
	uint64_t calls = 0;
	unsigned n;

	*regions = 0;
	CHECK_MSG(r != NULL, "%s", pmu_errmsg());
	n = r ? pmu_results_regions(r, &names) : 0;
	for (unsigned i = 0; i < n; i++) {
		struct pmu_region_result t = { .size = sizeof(t) };

		if (strncmp(names[i], prefix, strlen(prefix)) || pmu_results_get(r, i, -1, &t) != 0)
			continue;
		calls += t.calls;
		++*regions;
	}
	pmu_results_free(r);
	return calls;
}

static void *second_thread(void *arg)
{
	(void)arg;
	CHECK(round_of("m_", many) == 0);
	return NULL;
}

/* Bytes in use from malloc's own arenas: not where a sanitizer or valgrind replaces malloc. */
static int heap_measured(size_t *bytes)
{
#ifdef T_SANITIZED
	(void)bytes;
	return 0;
#else
	if (t_under_valgrind())
		return 0;
	*bytes = mallinfo2().uordblks;
	return 1;
#endif
}

static void six_hundred(void)
{
	unsigned regions;

	CHECK(round_of("k_", 600) == 0);
	CHECK_EQ(calls_of("k_", &regions), 600);
	CHECK_EQ(regions, 600);
	printf("six_hundred: 600 names, each in the results\n");
}

static void test_many(void)
{
	size_t before = 0, after = 0;
	pthread_t th;
	unsigned regions;
	int measured;

	CHECK(round_of("m_", many) == 0);
	measured = heap_measured(&before);
	CHECK(round_of("m_", many) == 0);
	if (measured && heap_measured(&after))
		CHECK_MSG(after == before, "a second round of %ld names allocated %zd bytes", many,
			  (ssize_t)(after - before));
	CHECK(pthread_create(&th, NULL, second_thread, NULL) == 0);
	pthread_join(th, NULL);
	CHECK_EQ(calls_of("m_", &regions), 3 * (uint64_t)many);
	CHECK_EQ(regions, many);
	printf("many: %ld names, 3 calls each in 2 threads%s\n", many,
	       measured ? ", the second round with no allocation" : "");
}

#ifndef T_SANITIZED	/* a million names is the host tier's */
/* Registers names up to the cap (no figures: names only), then one more. */
static void cap(void)
{
	char name[32];
	long i;
	int h = 0;

	for (i = 0; i < CAP && h >= 0; i++) {
		snprintf(name, sizeof(name), "c_%ld", i);
		h = pmu_region_register(name);
	}
	/* the names so far: 1 + 600 + many, then c0.. */
	CHECK_MSG(h == -ENOSPC, "name %ld: %d, %s", i, h, pmu_errmsg());
	CHECK_MSG(strstr(pmu_errmsg(), name) && strstr(pmu_errmsg(), "1048576 distinct region names"), "%s",
		  pmu_errmsg());
	CHECK_EQ(i, CAP - 1 - 600 - many + 1);
	CHECK(pmu_region_begin("k_0") == 0 && pmu_region_end("k_0") == 0);
	CHECK_EQ(pmu_region_register("c_0"), 1 + 600 + many + 1);
	printf("cap: name %ld refused: %s\n", i, pmu_errmsg());
}
#endif

int main(void)
{
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK_MSG(pmu_thread_init("task-clock") == 0, "%s", pmu_errmsg());
	CHECK(pmu_region_begin("main") == 0 && pmu_region_end("main") == 0);
	many = MANY;	/* not scaled down: 10^5 is the promise, and takes 5 s under valgrind */
	six_hundred();
	test_many();
#ifdef T_SANITIZED
	printf("cap: not run under a sanitizer (a million names is the host tier's)\n");
#else
	if (t_under_valgrind())
		printf("cap: not run under valgrind (a million names is the host tier's)\n");
	else
		cap();
#endif
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
