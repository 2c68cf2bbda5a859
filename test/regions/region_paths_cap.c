/* SPDX-License-Identifier: MIT */
/*
 * A program that nests at random meets the cap on a thread's call paths
 * (PMU_PATHS=64 here): the paths past it go to "(other paths)" under the path
 * around them, the library says so once, and no call is lost: the paths'
 * calls add up to the calls made, and so do the regions'. A bad PMU_PATHS is
 * said and the default kept (a child, as the cap is read once).
 */
#include <pmu.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_capture.h"

static char said[512];
static int says;

static int capture(enum pmu_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	says++;
	return vsnprintf(said, sizeof(said), fmt, ap);
}

/* n random begins and ends (nesting at most 8 deep) over 200 names; the calls made. */
static uint64_t random_nesting(unsigned n)
{
	static char names[200][16];
	unsigned seed = 12345, depth = 0, stack[8];
	uint64_t calls = 0;

	for (unsigned i = 0; i < 200; i++)
		snprintf(names[i], sizeof(names[i]), "n%u", i);
	for (unsigned i = 0; i < n || depth; i++) {
		seed = seed * 1103515245u + 12345u;
		if (i < n && depth < 8 && (depth == 0 || (seed >> 16) % 3)) {
			stack[depth] = (seed >> 8) % 200;
			CHECK(pmu_region_begin(names[stack[depth++]]) == 0);
		} else {
			CHECK(pmu_region_end(names[stack[--depth]]) == 0);
			calls++;
		}
	}
	return calls;
}

static const char *self_exe;	/* argv[0]: /proc/self/exe would be valgrind's under valgrind */

/* This program again, with a bad PMU_PATHS: the cap is read once per process. */
static void bad_value(void)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		setenv("PMU_PATHS", "lots", 1);
		execl(self_exe, self_exe, "bad", (char *)NULL);
		_exit(3);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a bad PMU_PATHS was not said (status 0x%x)", st);
}

/* The child of bad_value(): 0 when the bad value was said, once. */
static int bad_child(void)
{
	pmu_set_print(capture);
	if (pmu_thread_init("task-clock") != 0 || pmu_region_begin("x") != 0 || pmu_region_end("x") != 0)
		return 2;
	if (pmu_thread_fini() != 0 || says != 1 || !strstr(said, "PMU_PATHS=lots: not a number of paths")) {
		fprintf(stderr, "%d: %s", says, said);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pmu_results *r;
	const char *const *names;
	uint64_t made, by_path = 0, by_region = 0;
	unsigned np, other = 0, nreg;
	char *table;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	self_exe = argv[0];
	if (argc > 1 && !strcmp(argv[1], "bad"))
		return bad_child();
	setenv("PMU_PATHS", "64", 1);
	pmu_set_print(capture);
	CHECK_MSG(pmu_thread_init("task-clock") == 0, "%s", pmu_errmsg());
	made = random_nesting(20000);
	CHECK_MSG(says == 1 && strstr(said, "its cap (PMU_PATHS)") && strstr(said, "(other paths)"), "%d: %s", says,
		  said);
	r = pmu_results_take();
	CHECK_MSG(r != NULL, "%s", pmu_errmsg());
	np = pmu_results_paths(r);
	nreg = pmu_results_regions(r, &names);
	for (unsigned i = 0; i < np; i++) {
		struct pmu_path_result p = { .size = sizeof(p) };

		CHECK(pmu_results_path(r, i, -1, &p) == 0);
		by_path += p.calls;
		other += !strcmp(names[p.region], "(other paths)");
	}
	for (unsigned i = 0; i < nreg; i++) {
		struct pmu_region_result g = { .size = sizeof(g) };

		if (pmu_results_get(r, i, -1, &g) == 0)
			by_region += g.calls;
	}
	CHECK_MSG(np <= 64 + other && other > 0, "%u paths, %u of them (other paths)", np, other);
	CHECK_EQ(by_path, made);
	CHECK_EQ(by_region, made);
	printf("%llu calls: %u paths (%u of them \"(other paths)\"), every call in them\n", (unsigned long long)made,
	       np, other);
	pmu_results_free(r);
	table = t_report("table");
	CHECK_MSG(strstr(table, "(other paths): ") && strstr(table, " calls of paths past a thread's cap of 64 (PMU_PATHS)"),
		  "%s", table);
	free(table);
	bad_value();
	pmu_set_print(NULL);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
