// SPDX-License-Identifier: MIT
/*
 * ns per region pair, side by side in one process, events task-clock:
 * libpmu-papi's PAPI_hl_region_begin/end against the real libpapi's (where
 * it is installed and can count), and libpmu-likwid's LIKWID_MARKER_START/STOP
 * against libpmu's own pmu_region_begin/end. The drop-ins are loaded from the
 * build directory beside this program. Figures only, never compared.
 * On a machine without a hardware PMU the real PAPI counts only with
 * test/compat/pfm_core.c preloaded (test/compat.sh does that).
 *   bench/compat [PAIRS]
 */
#include <dlfcn.h>
#include <ftw.h>
#include <limits.h>
#include <pmu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 9
#define BATCH_NS 0.5e9		/* a batch stops here, whatever its count of pairs: a slow method never hangs the run */

typedef int (*name_fn)(const char *);

struct method {
	const char *label;
	name_fn begin, end;
	double ns[BATCHES];
	long fewest;		/* pairs in its shortest batch (fewer than asked: cut at BATCH_NS) */
	const char *why;	/* not measured: why */
};

static char outdir[] = "/tmp/pmu-bench-compat-XXXXXX";

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

/* Runs after the libraries' output at exit: their files go with the directory. */
static void cleanup(void)
{
	nftw(outdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *load(const char *dir, const char *lib, const char **why)
{
	char path[PATH_MAX + 64];
	void *h;

	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, lib);
	else
		snprintf(path, sizeof(path), "%s", lib);
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		*why = strdup(dlerror());
	return h;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The fewest ns of the batches: the one least disturbed by the rest of the machine. */
static double best(const double *v)
{
	double s[BATCHES];

	memcpy(s, v, sizeof(s));
	qsort(s, BATCHES, sizeof(s[0]), cmp);
	return s[0];
}

static double median(const double *v)
{
	double s[BATCHES];

	memcpy(s, v, sizeof(s));
	qsort(s, BATCHES, sizeof(s[0]), cmp);
	return s[BATCHES / 2];
}

/* One batch of up to pairs pairs, cut at BATCH_NS; ns a pair. */
static double batch(struct method *m, long pairs)
{
	double t0 = now(), t = t0;
	long k = 0;

	while (k < pairs && t - t0 < BATCH_NS) {
		for (long end = k + 64 < pairs ? k + 64 : pairs; k < end; k++) {
			m->begin("bench");
			m->end("bench");
		}
		t = now();
	}
	if (k < m->fewest)
		m->fewest = k;
	return (t - t0) / k;
}

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? atol(argv[1]) : 100000;
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct method m[4] = {
		{ "libpmu pmu_region_begin/end", pmu_region_begin, pmu_region_end },
		{ "libpmu-likwid LIKWID_MARKER_START/STOP" },
		{ "libpmu-papi PAPI_hl_region_begin/end" },
		{ "real PAPI 7.0 PAPI_hl_region_begin/end" },
	};
	void (*lk_init)(void) = NULL, (*lk_close)(void) = NULL;
	void *h;

	if (n < 0 || pairs <= 0)
		return 1;
	exe[n] = 0;
	if ((slash = strrchr(exe, '/')))
		*slash = 0;
	strncat(exe, "/..", sizeof(exe) - strlen(exe) - 1);
	if (!mkdtemp(outdir))
		return 1;
	atexit(cleanup);
	/* One event list for all four: the drop-ins map these to libpmu's task-clock. */
	setenv("PAPI_EVENTS", "perf::TASK-CLOCK", 1);
	setenv("PAPI_OUTPUT_DIRECTORY", outdir, 1);
	setenv("PMU_EVENTS", "task-clock", 1);
	unsetenv("PMU_REPORT");
	unsetenv("PAPI_REPORT");
	if (pmu_thread_init("task-clock") < 0) {
		fprintf(stderr, "task-clock: %s\n", pmu_errmsg());
		return 1;
	}
	if ((h = load(exe, "libpmu-likwid.so.0", &m[1].why))) {
		lk_init = (void (*)(void))dlsym(h, "likwid_markerInit");
		lk_close = (void (*)(void))dlsym(h, "likwid_markerClose");
		m[1].begin = (name_fn)dlsym(h, "likwid_markerStartRegion");
		m[1].end = (name_fn)dlsym(h, "likwid_markerStopRegion");
		if (lk_init)
			lk_init();
	}
	if ((h = load(exe, "libpmu-papi.so.0", &m[2].why))) {
		m[2].begin = (name_fn)dlsym(h, "PAPI_hl_region_begin");
		m[2].end = (name_fn)dlsym(h, "PAPI_hl_region_end");
	}
	if ((h = load(NULL, "libpapi.so.7.0", &m[3].why))) {
		m[3].begin = (name_fn)dlsym(h, "PAPI_hl_region_begin");
		m[3].end = (name_fn)dlsym(h, "PAPI_hl_region_end");
	}
	/* A first pair each: the real PAPI may refuse (no counters), the drop-ins set up. */
	for (int i = 0; i < 4; i++) {
		int rb, re;

		if (!m[i].begin || !m[i].end) {
			if (!m[i].why)
				m[i].why = "symbols not found";
			continue;
		}
		rb = m[i].begin("bench");
		re = m[i].end("bench");
		if (rb || re) {
			static char buf[4][96];

			snprintf(buf[i], sizeof(buf[i]), "cannot count here: its first begin/end returned %d/%d", rb, re);
			m[i].why = buf[i];
			m[i].begin = NULL;
		}
	}
	for (int i = 0; i < 4; i++)
		m[i].fewest = pairs;
	for (int b = 0; b < BATCHES; b++)
		for (int i = 0; i < 4; i++)
			if (m[i].begin)
				m[i].ns[b] = batch(&m[i], pairs);
	printf("region pair, ns: fewest / median of %d batches of %ld pairs (each at most %.1f s), round robin; "
	       "events task-clock\n", BATCHES, pairs, BATCH_NS / 1e9);
	for (int i = 0; i < 4; i++) {
		if (!m[i].begin) {
			printf("  %-42s     -  (%s)\n", m[i].label, m[i].why);
			continue;
		}
		printf("  %-42s %6.0f / %6.0f", m[i].label, best(m[i].ns), median(m[i].ns));
		if (i == 1 && m[0].begin)
			printf("   %.2fx libpmu's own API", best(m[1].ns) / best(m[0].ns));
		if (i == 2 && m[3].begin)
			printf("   %.2fx the real PAPI_hl", best(m[2].ns) / best(m[3].ns));
		if (m[i].fewest < pairs)
			printf("   (cut: %ld pairs in a batch's %.1f s)", m[i].fewest, BATCH_NS / 1e9);
		printf("\n");
	}
	if (lk_close)
		lk_close();
	return 0;
}
