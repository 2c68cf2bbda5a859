/* SPDX-License-Identifier: MIT */
/*
 * Every function as a region: this program is built with
 * -finstrument-functions (the Makefile) and linked with the library.
 * - Functions are regions of their call paths, with exact page faults per
 *   path and self; a region by name inside a function nests under it.
 * - PMU_FUNCTIONS' exclude pattern leaves a function out, its faults in its
 *   caller's self.
 * - The budget cuts a tiny function after its first calls, and the json
 *   report lists it with every call it saw.
 * - Exits lost to longjmp are repaired at the exit of the function that
 *   called setjmp: what runs next is not under the lost frames.
 * - A region by name begun in one function and ended in another is said,
 *   and the function's region ends when the named one has.
 * - The selves of all paths add up to the top path's total, which is within
 *   1% of the thread's own count over the same span.
 * - Two more threads run functions at once with it: their paths are their own.
 * - An address in no object is named by its address.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>

#include "report_capture.h"
#include "regions/functions.h"
#include "regions/region.h"

#define NOINLINE __attribute__((noinline))

static jmp_buf jb;
static volatile int sink, floor_depth;
static char said[4096];

static int print_to(enum pmu_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(said);

	(void)level;
	vsnprintf(said + n, sizeof(said) - n, fmt, ap);
	return 0;
}

/* Exact page faults (test.h's helper, which the compiler's hooks leave out). */
NOINLINE static void fault(int pages) { t_touch_pages(pages); }

NOINLINE static void leaf(int pages) { fault(pages); }
NOINLINE static void excluded_helper(void) { fault(50); }
NOINLINE static int tiny(int i) { return i * 3; }
NOINLINE static void setup(void) { fault(100); leaf(200); excluded_helper(); }
NOINLINE static void step(void)
{
	leaf(300);
	pmu_region_begin("named");
	fault(10);
	pmu_region_end("named");
}
NOINLINE static void thrower(void)
{
	if (!floor_depth)
		longjmp(jb, 1);
}
NOINLINE static void lost(int d)
{
	if (d > floor_depth)
		lost(d - 1);
	else
		thrower();
}
NOINLINE static void jumper(void) { if (!setjmp(jb)) lost(3); }
NOINLINE static void after_jump(void) { fault(7); }
NOINLINE static void opens(void) { pmu_region_begin("across"); }
static int closed;
static char closed_msg[256];
NOINLINE static void closes(void)
{
	closed = pmu_region_end("across");
	snprintf(closed_msg, sizeof(closed_msg), "%s", pmu_errmsg());
}
NOINLINE static void later(void) { fault(5); }

/* Another thread's functions, at once with run(): its own paths, under worker. */
NOINLINE static void *worker(void *arg)
{
	for (int i = 0; i < 3; i++)
		step();
	volatile int own = 0;	/* not the shared sink: the threads run at once */

	for (int i = 0; i < 5000; i++)
		own += tiny(i);
	return own ? arg : NULL;
}

NOINLINE static void run(void)
{
	setup();
	for (int i = 0; i < 2; i++)
		step();
	for (int i = 0; i < 10000; i++)
		sink += tiny(i);
	jumper();
	after_jump();
	opens();
	closes();
	later();
	fault(4000);	/* the bulk, for the 1% */
}

/* Path [names...] (NULL-terminated) in the json report: its "path" entry's text, or NULL. */
static const char *path_in(const char *json, const char *want)
{
	const char *p = json;

	while ((p = strstr(p, want)) && p[strlen(want)] != ']')	/* not a path under it */
		p++;
	return p;
}

/* Under valgrind and the sanitizers, their own memory (shadow, translations) faults in the program's regions too. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define INFLATED() 1
#else
#define INFLATED() t_under_valgrind()
#endif

/* Page faults as counted: exact, or at least as many where others' memory work adds some. */
static int pf(uint64_t got, uint64_t want)
{
	return INFLATED() ? got >= want && got != (uint64_t)-1 : got == want;
}

/*
 * A path around others: a path's first call may fault a page in for its
 * node (the library's, in the path around it) as threads take memory too.
 */
static int pf_about(uint64_t got, uint64_t want)
{
	return pf(got, want) || (!INFLATED() && got > want && got <= want + 4);
}

static uint64_t num_after(const char *p, const char *key)
{
	const char *k = p ? strstr(p, key) : NULL;

	return k ? strtoull(k + strlen(key), NULL, 10) : (uint64_t)-1;
}

int main(void)
{
	uint64_t before, after, total, self = 0;
	char *json, name[PMU_REGION_NAME + 32], *heap = malloc(64);
	const char *p, *c;
	pthread_t th[2];

	setenv("PMU_FUNCTIONS", "*,-excluded_*", 1);
	pmu_set_print(print_to);
	CHECK_MSG(pmu_thread_init("page-faults") == 0, "%s", pmu_errmsg());
	CHECK(pmu_thread_read(&before) == 0);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0);
	run();
	CHECK(pmu_thread_read(&after) == 0);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
	json = t_report("json");

	/* paths and their page faults: total and self */
	p = path_in(json, "{\"path\": [\"run\", \"setup\", \"leaf\", \"fault\"");
	CHECK_MSG(p && num_after(p, "\"calls\": ") == 1 && pf(num_after(p, "\"self_counts\": {\"page-faults\": "), 200),
		  "%.3000s", json);
	p = path_in(json, "{\"path\": [\"run\", \"setup\", \"leaf\"");
	CHECK(p && pf_about(num_after(p, "\"counts\": {\"page-faults\": "), 200) &&
	      pf_about(num_after(p, "\"self_counts\": {\"page-faults\": "), 0));
	/* excluded_helper's call of fault is setup's: [run, setup, fault] twice, 150 faults */
	p = path_in(json, "{\"path\": [\"run\", \"setup\", \"fault\"");
	CHECK_MSG(p && num_after(p, "\"calls\": ") == 2 && pf(num_after(p, "\"counts\": {\"page-faults\": "), 150),
		  "%.600s", p ? p : json);
	p = path_in(json, "{\"path\": [\"run\", \"setup\"");
	CHECK(p && pf_about(num_after(p, "\"counts\": {\"page-faults\": "), 350));
	CHECK_MSG(!strstr(json, "excluded_helper"), "an excluded function counted");
	p = path_in(json, "{\"path\": [\"run\", \"step\", \"leaf\"");
	CHECK(p && num_after(p, "\"calls\": ") == 2 && pf_about(num_after(p, "\"counts\": {\"page-faults\": "), 600));
	p = path_in(json, "{\"path\": [\"run\", \"step\", \"named\"");
	CHECK_MSG(p && pf_about(num_after(p, "\"counts\": {\"page-faults\": "), 20), "a region by name under its function: %.300s",
		  p ? p : "none");
	p = path_in(json, "{\"path\": [\"run\", \"step\", \"named\", \"fault\"");
	CHECK(p && pf(num_after(p, "\"counts\": {\"page-faults\": "), 20));

	/* the budget: tiny cut after its first calls (of the three threads'), every call seen */
	c = strstr(json, "\"functions_cut\": [");
	p = c ? strstr(c, "{\"function\": \"tiny\"") : NULL;
	CHECK_MSG(p && num_after(p, "\"calls\": ") == 20000, "%.2000s", c ? c : json);
	/* counted until its 100th trial call ends: with threads, the calls others make meanwhile too */
	CHECK_MSG(num_after(path_in(json, "{\"path\": [\"run\", \"tiny\""), "\"calls\": ") +
		  num_after(path_in(json, "{\"path\": [\"worker\", \"tiny\""), "\"calls\": ") < 20000,
		  "tiny counted in every call: not cut");
	/* the other threads' paths: step under worker, 6 calls */
	p = path_in(json, "{\"path\": [\"worker\", \"step\", \"leaf\"");
	CHECK(p && num_after(p, "\"calls\": ") == 6 && pf_about(num_after(p, "\"counts\": {\"page-faults\": "), 1800));

	/* longjmp: the lost frames ended at jumper's exit; after_jump under run, not under them */
	CHECK_MSG(path_in(json, "{\"path\": [\"run\", \"after_jump\"") &&
		  path_in(json, "{\"path\": [\"run\", \"jumper\", \"lost\", \"thrower\""), "%.3000s", json);
	CHECK_MSG(strstr(said, "function exits lost (longjmp or an exception)"), "said: %s", said);
	/* a region by name across two functions: ended at the first's exit, said; its end refused; later under run */
	CHECK_MSG(strstr(said, "opens: a region by name begun in it is still open at its exit"), "said: %s", said);
	CHECK_MSG(closed == -EINVAL && strstr(closed_msg, "across: pmu_region_end() of a region not open"), "%d %s",
		  closed, closed_msg);
	CHECK(path_in(json, "{\"path\": [\"run\", \"opens\", \"across\""));
	CHECK_MSG(path_in(json, "{\"path\": [\"run\", \"later\""), "%.3000s", json);

	/* selves add up to run's total, which is the thread's count over run() within 1% */
	p = path_in(json, "{\"path\": [\"run\"");
	total = num_after(p, "\"counts\": {\"page-faults\": ");
	for (c = strstr(json, "\"paths\": ["); c && (c = strstr(c, "{\"path\": [\"run\"")); c++)
		self += num_after(c, "\"self_counts\": {\"page-faults\": ");
	CHECK_MSG(self == total, "selves %llu, run's total %llu", (unsigned long long)self, (unsigned long long)total);
	CHECK_MSG(INFLATED() ||
		  (total <= after - before && (double)(after - before - total) <= 0.01 * (double)(after - before)),
		  "run counted %llu page faults, the thread %llu", (unsigned long long)total,
		  (unsigned long long)(after - before));
	printf("run(): %llu page faults in its paths' selves, the thread counted %llu\n", (unsigned long long)self,
	       (unsigned long long)(after - before));

	/* an address in no object: its address */
	pmu__fn_name(heap + 8, name, sizeof(name));
	CHECK_MSG(!strncmp(name, "?+0x", 4), "%s", name);
	pmu__fn_name((void *)malloc, name, sizeof(name));
	CHECK_MSG(strstr(name, "malloc"), "%s", name);
	free(json);
	free(heap);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
