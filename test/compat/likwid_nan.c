/*
 * LIKWID_MARKER_GET where part of a group did not open: every place of the
 * group is there, in PMU_EVENTS' order, and a place whose event is not
 * counted is NaN, never another event's value.
 *   likwid_nan WANT...   each WANT: "pf" (the page faults the region
 *                        touched), "pos" (above 0) or "nan", in order
 * Built against likwid-marker.h with -DLIKWID_PERFMON. Exit 0 pass, 1 fail.
 */
#include <likwid-marker.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 40

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);
	double ev[16], t;
	int n = 16, count, fails = 0;
	char *p;

	LIKWID_MARKER_INIT;
	LIKWID_MARKER_START("work");
	p = mmap(NULL, PAGES * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, PAGES * psz, MADV_NOHUGEPAGE);
	for (long i = 0; i < PAGES; i++)
		p[i * psz] = 1;
	LIKWID_MARKER_STOP("work");
	LIKWID_MARKER_GET("work", &n, ev, &t, &count);
	printf("%d events:", n);
	for (int e = 0; e < n; e++)
		printf(" %g", ev[e]);
	printf("\n");
	if (n != argc - 1) {
		printf("FAIL: %d events, not %d\n", n, argc - 1);
		fails++;
	}
	for (int e = 0; e < n && e < argc - 1; e++) {
		const char *w = argv[e + 1];
		int ok = !strcmp(w, "nan") ? isnan(ev[e]) : !strcmp(w, "pf") ? ev[e] == PAGES : ev[e] > 0;

		if (!ok) {
			printf("FAIL: event %d is %g, not %s\n", e, ev[e], w);
			fails++;
		}
	}
	LIKWID_MARKER_CLOSE;
	munmap(p, PAGES * psz);
	return fails ? 1 : 0;
}
