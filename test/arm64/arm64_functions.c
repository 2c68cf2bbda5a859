/* SPDX-License-Identifier: MIT */
/*
 * Every function a region (-finstrument-functions: this program is built
 * with the flag) on arm64's PMU under QEMU -icount shift=0, where
 * instruction counts are exact and the read is the user-space one: each
 * function's self instructions are its own loop's within 1% (the hooks'
 * reads and the calls around them the rest), the budget cuts a tiny
 * function after its first calls, the selves of all paths add up to the
 * top path's total, which is the thread's own count over the same span
 * within 1%. Prints what a counted call costs in instructions
 * (bench/README.md quotes it).
 */
#include "a64.h"
#include "report_capture.h"
#include "regions/functions.h"

#define NOINLINE __attribute__((noinline))
#define SPIN 100000

static volatile int sink;

NOINLINE static void work(void) { guest_spin(SPIN); }
NOINLINE static void inner(void) { work(); }
NOINLINE static void outer(void) { work(); inner(); }
NOINLINE static int tiny(int i) { return i + 1; }

NOINLINE static void run(void)
{
	for (int i = 0; i < 3; i++)
		outer();
	for (int i = 0; i < 10000; i++)
		sink += tiny(i);
}

/* The figure after key in json's path entry [names], or -1. */
static int64_t fig(const char *json, const char *path, const char *key)
{
	const char *p = strstr(json, path), *k;

	if (!p || p[strlen(path)] != ']' || !(k = strstr(p, key)))
		return -1;
	return strtoll(k + strlen(key), NULL, 10);
}

#define SELF "\"self_counts\": {\"instructions:u\": "
#define TOTAL "\"counts\": {\"instructions:u\": "

int main(void)
{
	uint64_t before, after;
	int64_t w, o, in, run_total, self = 0;
	const char *c;
	char *json;

	a64_require_icount();
	if (pmu_thread_init("instructions:u") < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	CHECK(pmu_thread_read(&before) == 0);
	run();
	CHECK(pmu_thread_read(&after) == 0);
	json = t_report("json");
	w = fig(json, "{\"path\": [\"run\", \"outer\", \"work\"", SELF);
	in = fig(json, "{\"path\": [\"run\", \"outer\", \"inner\", \"work\"", SELF);
	o = fig(json, "{\"path\": [\"run\", \"outer\"", SELF);
	/* 3 calls of 2 * SPIN + 1 instructions each */
	CHECK_MSG(w >= 3 * (2 * SPIN + 1) && w <= 3 * (2 * SPIN + 1) * 101 / 100, "work under outer: %lld", (long long)w);
	CHECK_MSG(in >= 3 * (2 * SPIN + 1) && in <= 3 * (2 * SPIN + 1) * 101 / 100, "work under inner: %lld",
		  (long long)in);
	CHECK_MSG(fig(json, "{\"path\": [\"run\", \"tiny\"", "\"calls\": ") == PMU_FN_TRIAL, "%.2000s", json);
	c = strstr(json, "\"functions_cut\": [");
	CHECK_MSG(c && strstr(c, "{\"function\": \"tiny\", \"calls\": 10000,"), "%.2000s", json);
	run_total = fig(json, "{\"path\": [\"run\"", TOTAL);
	for (c = strstr(json, "\"paths\": ["); c && (c = strstr(c, SELF)); c++)
		self += strtoll(c + strlen(SELF), NULL, 10);
	CHECK_MSG(self == run_total, "selves %lld, run's total %lld", (long long)self, (long long)run_total);
	CHECK_MSG(run_total > 0 && (uint64_t)run_total <= after - before &&
		  (double)(after - before - (uint64_t)run_total) <= 0.01 * (double)(after - before),
		  "run %lld, the thread %llu", (long long)run_total, (unsigned long long)(after - before));
	/* outer's self: its two calls (work, inner) and its loop's share; each call's pair of hooks and reads */
	printf("arm64_functions: work %lld instructions under outer, %lld under inner (3 x %d loop); outer's self "
	       "%lld for 6 counted calls: %lld a counted call; run %lld of the thread's %llu\n", (long long)w,
	       (long long)in, 2 * SPIN + 1, (long long)o, (long long)(o / 6), (long long)run_total,
	       (unsigned long long)(after - before));
	free(json);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
