/*
 * LIKWID's marker API through libpmu-likwid, built against likwid-marker.h
 * with -DLIKWID_PERFMON. Run with PMU_EVENTS="page-faults|task-clock,page-faults":
 * LIKWID_MARKER_SWITCH alternates the two groups (GET gives 1 event, then 2),
 * GET's count is the calls made in that group and its page faults those
 * touched, RESET starts GET's figures afresh, STOP without START fails.
 * Exit 0 pass, 1 fail.
 */
#include <likwid-marker.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 50

static int fails;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

static void touch(long n)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * psz, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * psz] = 1;
	munmap(p, n * psz);
}

int main(void)
{
	double ev[10], t;
	int n, count;

	LIKWID_MARKER_INIT;
	LIKWID_MARKER_THREADINIT;
	LIKWID_MARKER_REGISTER("work");
	for (int g = 0; g < 6; g++) {
		CHECK(LIKWID_MARKER_START("work") == 0, "START in round %d", g);
		touch(PAGES);
		CHECK(LIKWID_MARKER_STOP("work") == 0, "STOP in round %d", g);
		n = 10;
		LIKWID_MARKER_GET("work", &n, ev, &t, &count);
		int want_n = g % 2 ? 2 : 1, calls = g / 2 + 1;
		double pf = g % 2 ? ev[1] : ev[0];
		printf("round %d: group %d, %d events, %d calls, %.0f page faults, %.6f s\n",
		       g, g % 2 + 1, n, count, pf, t);
		CHECK(n == want_n, "round %d: %d events, not %d", g, n, want_n);
		CHECK(count == calls, "round %d: count %d, not %d", g, count, calls);
		CHECK(pf == (double)PAGES * calls, "round %d: %.0f page faults, not %d", g, pf, PAGES * calls);
		CHECK(t > 0, "round %d: no time", g);
		if (g % 2)
			CHECK(ev[0] > 0, "round %d: no task-clock", g);
		LIKWID_MARKER_SWITCH;
	}
	/* Group 1 again: RESET, then one more call. */
	CHECK(LIKWID_MARKER_RESET("work") == 0, "RESET");
	n = 10;
	LIKWID_MARKER_GET("work", &n, ev, &t, &count);
	CHECK(count == 0 && ev[0] == 0, "after RESET: count %d, %.0f page faults", count, ev[0]);
	LIKWID_MARKER_START("work");
	touch(PAGES);
	LIKWID_MARKER_STOP("work");
	n = 10;
	LIKWID_MARKER_GET("work", &n, ev, &t, &count);
	CHECK(count == 1 && ev[0] == PAGES, "after RESET and a call: count %d, %.0f page faults", count, ev[0]);
	CHECK(LIKWID_MARKER_STOP("never") < 0, "STOP of a region never started succeeded");
	n = 10;
	LIKWID_MARKER_GET("never", &n, ev, &t, &count);
	CHECK(n == 0 && count == 0, "GET of a region never run: %d events, count %d", n, count);
	LIKWID_MARKER_CLOSE;
	printf("%s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
