// SPDX-License-Identifier: MIT
/*
 * libpmu-likwid: LIKWID 5.2's marker API (LIKWID_MARKER_* under
 * -DLIKWID_PERFMON) on libpmu's regions, written from LIKWID's documentation.
 * Events come from PMU_EVENTS in libpmu's names; groups are separated by '|'
 * and LIKWID_MARKER_SWITCH rotates them. Every group's events are opened at
 * once (libpmu has one event list per process), and a region's calls are
 * filed under the group current when they begin: "name" with one group,
 * "name [group N]" with more. The results go to libpmu's report (PMU_REPORT).
 * See libpmu-likwid(7).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pmu.h>
#include "plugin.h"
#include "base/internal.h"	/* header-only: locks, atomics, clocks */
#include "fortran.h"
#include "likwid_protos.h"

#define API __attribute__((visibility("default")))
#define MAXEV 64
#define MAXGROUPS 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ready;		/* likwid_markerInit() succeeded; set after the rest */
static int own_report;			/* we called pmu_thread_init(): we write the report at close */
static int ngroups = 1;
static int gsize[MAXGROUPS];		/* events per group */
static int gidx[MAXGROUPS][MAXEV];	/* each group's events as indexes into libpmu's list */
static int group;		/* the current group */

/* A region name in one group: the name libpmu gets, and what RESET took away. */
struct name {
	struct name *next;
	char *tag;			/* the caller's text */
	int group;
	char *pmu;			/* "tag" or "tag [group N]" */
	int handle;			/* libpmu's region of that name */
};

static struct name *names;

/* Per thread: the caller's pointer -> name cache, and the figures RESET left behind. */
struct base {
	struct base *next;
	const struct name *n;
	uint64_t calls, ns, v[MAXEV];
};

struct thr {
	struct { const char *ptr; const struct name *n; } cache[64];
	struct base *bases;
};

static void warn(const char *what, const char *fmt, const char *arg);

/* Initial-exec, as libpmu's own: no __tls_get_addr call on the way to a region. */
static __thread struct thr *self __attribute__((tls_model("initial-exec")));
static pthread_key_t thr_key;		/* frees a thread's state when it exits */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void thr_free(void *p)
{
	struct thr *t = p;

	for (struct base *b = t->bases, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t);
}

static void key_init(void)
{
	if (pthread_key_create(&thr_key, thr_free) != 0)
		warn("thread state", "%s", "no thread-specific key: each thread's state stays to the end");
}

static struct thr *thr_new(void)
{
	pthread_once(&key_once, key_init);
	if ((self = calloc(1, sizeof(*self))))
		pthread_setspecific(thr_key, self);
	return self;
}

static void warn(const char *what, const char *fmt, const char *arg)
{
	fprintf(stderr, "libpmu-likwid: %s: ", what);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* The index of event name e (len bytes) among the per-thread layer's, or -1. */
static int event_index(const char *e, size_t len)
{
	for (int i = 0; i < pmu_thread_event_count(); i++) {
		const char *n = pmu_thread_event_name((unsigned)i);

		if (n && strlen(n) == len && !strncmp(n, e, len))
			return i;
	}
	return -1;
}

/* Appends event k (-1: not counted) to group g's places; false when it is not counted. */
static bool add_place(int g, int k)
{
	if (gsize[g] < MAXEV)
		gidx[g][gsize[g]++] = k;
	return k >= 0;
}

/*
 * Group g's places for tok (len bytes): the event, or a metric's or metric
 * group's events (IPC: instructions, cycles); a name that opens nowhere
 * here, one place. The names not counted are added to *missing.
 */
static int map_token(const char *tok, size_t len, int g, char **missing)
{
	char *one = strndup(tok, len), *spec = NULL, *named = NULL, *m;
	const char *p, *t;
	size_t l;
	bool all = true;

	if (!one)
		return -ENOMEM;
	if (event_index(tok, len) < 0 && pmu__metric_expand(one, &spec, &named) == 0 && named)
		for (p = spec; pmu__event_next(&p, &t, &l) > 0;)
			all &= add_place(g, event_index(t, l));
	else
		all = add_place(g, event_index(tok, len));
	free(spec);
	free(named);
	if (!all && asprintf(&m, "%s%s%s", *missing ? *missing : "", *missing ? ", " : "", one) > 0) {
		free(*missing);
		*missing = m;
	}
	free(one);
	return all;
}

/*
 * One group's events (a '|'-separated part of PMU_EVENTS, len bytes) into
 * gidx[g], in their order, -1 where one is not counted (GET gives NaN
 * there: never another event's value, never a place moved). The count of
 * events counted; *missing (malloc'd) names the others.
 */
static int map_group(const char *grp, size_t glen, int g, char **missing)
{
	char *copy = strndup(grp, glen);
	const char *p = copy, *tok;
	size_t len;
	int counted = 0;

	gsize[g] = 0;
	*missing = NULL;
	while (copy && pmu__event_next(&p, &tok, &len) > 0)
		counted += map_token(tok, len, g, missing) > 0;
	free(copy);
	return counted;
}

/*
 * Each group of PMU_EVENTS as indexes into the per-thread layer's events. A
 * group none of whose events the layer counts (they did not open) is left
 * out; one where some are not, kept with NaN in their places: both said.
 * The number of groups kept.
 */
static int map_groups(const char *env)
{
	const char *g = env, *bar;
	char *missing;
	int kept = 0;

	for (int n = 1; g && kept < MAXGROUPS; g = bar ? bar + 1 : NULL, n++) {
		size_t glen;

		bar = strchr(g, '|');
		glen = bar ? (size_t)(bar - g) : strlen(g);
		if (!map_group(g, glen, kept, &missing)) {
			fprintf(stderr, "libpmu-likwid: PMU_EVENTS: group %d (%.*s) is not counted: no event of it "
				"opened; the other groups are\n", n, (int)glen, g);
		} else {
			if (missing)
				fprintf(stderr, "libpmu-likwid: PMU_EVENTS: group %d (%.*s): %s not counted (it did not "
					"open): LIKWID_MARKER_GET gives NaN in its place\n", n, (int)glen, g, missing);
			kept++;
		}
		free(missing);
	}
	return kept;
}

API void likwid_markerInit(void)
{
	const char *env = secure_getenv("PMU_EVENTS");
	int pre;
	int cs;

	cs = pmu__lock(&lock);
	if (PMU_READ_ONCE(ready)) {	/* under the lock */
		pmu__unlock(&lock, cs);
		return;
	}
	if (!env || !*env) {
		warn("PMU_EVENTS", "%s", "not set: counting task-clock (LIKWID's -g groups and LIKWID_EVENTS are not read)");
		env = "task-clock";
	}
	/* libpmu's zero-code mode may have taken PMU_EVENTS already, and counts every group that opens. */
	pre = pmu_thread_event_count() > 0;
	/* each group that does not open is said once; the per-thread layer counts the others */
	if (!pre && pmu__thread_init_avail(env, true, "libpmu-likwid") < 0) {
		warn("PMU_EVENTS", "%s: the marker API does nothing", pmu_errmsg());
		pmu__unlock(&lock, cs);
		return;
	}
	own_report = !pre;
	ngroups = map_groups(env);
	if (!ngroups) {	/* regions still count their calls and time; GET gives no event */
		fprintf(stderr, "libpmu-likwid: PMU_EVENTS: no group is counted: LIKWID_MARKER_GET gives no event\n");
		ngroups = 1;
		gsize[0] = 0;
	}
	PMU_WRITE_ONCE(group, 0);
	PMU_STORE_RELEASE(ready, 1);
	pmu__unlock(&lock, cs);
}

API void likwid_markerThreadInit(void)
{
	uint64_t v[MAXEV];

	/* Opens the thread's counters now, so that its first region is not charged for it. */
	if (PMU_LOAD_ACQUIRE(ready) && pmu_thread_event_count() <= MAXEV && pmu_thread_read(v) < 0)
		warn("LIKWID_MARKER_THREADINIT", "%s", pmu_errmsg());
}

API void likwid_markerNextGroup(void)
{
	if (PMU_LOAD_ACQUIRE(ready) && ngroups > 1)
		PMU_WRITE_ONCE(group, (PMU_READ_ONCE(group) + 1) % ngroups);
}

/* The name of tag in group g: the thread's cache by pointer, then the process's list. */
static const struct name *lookup(const char *tag, int g)
{
	unsigned h = (unsigned)((((uintptr_t)tag >> 3) + (unsigned)g * 7) & 63);
	struct thr *t = self ? self : thr_new();
	const struct name *c;
	struct name *n;
	int cs;

	if (!t)
		return NULL;
	c = t->cache[h].n;
	if (c && t->cache[h].ptr == tag && c->group == g && !strcmp(c->tag, tag))
		return c;
	cs = pmu__lock(&lock);
	for (n = names; n; n = n->next)
		if (n->group == g && !strcmp(n->tag, tag))
			break;
	if (!n && (n = calloc(1, sizeof(*n)))) {
		size_t len = strlen(tag) + 24;

		n->group = g;
		n->tag = strdup(tag);
		n->pmu = malloc(len);
		if (!n->tag || !n->pmu) {
			free(n->tag);
			free(n->pmu);
			free(n);
			n = NULL;
		} else {
			if (ngroups > 1)
				snprintf(n->pmu, len, "%s [group %d]", tag, g + 1);
			else
				snprintf(n->pmu, len, "%s", tag);
			n->handle = pmu_region_register(n->pmu);
			if (n->handle < 0) {	/* a name libpmu refuses (too long, too many): said at START */
				free(n->tag);
				free(n->pmu);
				free(n);
				n = NULL;
			} else {
				n->next = names;
				names = n;
			}
		}
	}
	pmu__unlock(&lock, cs);
	if (n) {
		t->cache[h].ptr = tag;
		t->cache[h].n = n;
	}
	return n;
}

/* The region calls, all in these two: by the handle registered with the name. */
static inline int reg_enter(const struct name *n)
{
	return pmu_region_enter(n->handle);
}

static inline int reg_exit(const struct name *n)
{
	return pmu_region_exit(n->handle);
}

API int likwid_markerRegisterRegion(const char *regionTag)
{
	if (!PMU_LOAD_ACQUIRE(ready) || !regionTag || !*regionTag)
		return -EINVAL;
	for (int g = 0; g < ngroups; g++)
		if (!lookup(regionTag, g))
			return -ENOMEM;
	return 0;
}

/*
 * Start and stop: the name is that of the current group. A stop ends the call
 * begun in the same group: SWITCH is called between regions, as LIKWID asks.
 */
static int mark(const char *regionTag, int stop)
{
	const struct name *n;
	int r;

	if (!PMU_LOAD_ACQUIRE(ready) || !regionTag)
		return -EINVAL;
	if (!(n = lookup(regionTag, PMU_READ_ONCE(group))))
		return -ENOMEM;
	if ((r = stop ? reg_exit(n) : reg_enter(n)) < 0)
		warn(stop ? "LIKWID_MARKER_STOP" : "LIKWID_MARKER_START", "%s", pmu_errmsg());
	return r;
}

API int likwid_markerStartRegion(const char *regionTag)
{
	return mark(regionTag, 0);
}

API int likwid_markerStopRegion(const char *regionTag)
{
	return mark(regionTag, 1);
}

/* The calling thread's figures of name n now, from a snapshot of libpmu's results. */
static int current(const struct name *n, uint64_t *calls, uint64_t *ns, uint64_t *v)
{
	struct pmu_results *res = pmu_results_take();
	const char *const *rn;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	unsigned nr, nt;
	int r = -ENOENT;

	*calls = *ns = 0;
	memset(v, 0, MAXEV * sizeof(*v));
	if (!res)
		return -errno;
	nr = pmu_results_regions(res, &rn);
	nt = pmu_results_threads(res);
	for (unsigned i = 0; i < nr && r == -ENOENT; i++) {
		if (strcmp(rn[i], n->pmu))
			continue;
		for (unsigned t = 0; t < nt; t++) {
			struct pmu_thread_result th = { .size = sizeof(th) };
			struct pmu_region_result rr = { .size = sizeof(rr) };

			if (pmu_results_thread(res, t, &th) < 0 || th.tid != tid || th.exited)
				continue;
			if (pmu_results_get(res, i, (int)t, &rr) == 0) {
				*calls = rr.calls;
				*ns = rr.ns;
				for (unsigned e = 0; e < rr.nevents && e < MAXEV; e++)
					v[e] = rr.sum[e];
				r = 0;
			}
			break;
		}
	}
	pmu_results_free(res);
	return r;
}

static struct base *base_of(const struct name *n, int create)
{
	struct base *b;

	if (!self)	/* lookup() made it, or failed */
		return NULL;
	for (b = self->bases; b; b = b->next)
		if (b->n == n)
			return b;
	if (create && (b = calloc(1, sizeof(*b)))) {
		b->n = n;
		b->next = self->bases;
		self->bases = b;
	}
	return b;
}

/*
 * LIKWID clears the thread's figures of the region. libpmu keeps its own
 * (its report still has them); GET counts from here on.
 */
API int likwid_markerResetRegion(const char *regionTag)
{
	const struct name *n;
	struct base *b;
	int r;

	if (!PMU_LOAD_ACQUIRE(ready) || !regionTag)
		return -EINVAL;
	if (!(n = lookup(regionTag, PMU_READ_ONCE(group))) || !(b = base_of(n, 1)))
		return -ENOMEM;
	r = current(n, &b->calls, &b->ns, b->v);
	return r == -ENOENT ? 0 : r;
}

API void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events, double *time, int *count)
{
	uint64_t calls, ns, v[MAXEV];
	const struct name *n;
	struct base *b;
	int g = PMU_READ_ONCE(group), ne = 0;

	/*
	 * Each output is written once, with its final value: programs (LIKWID's
	 * own example among them) pass the same variables from every thread of
	 * a parallel region, and read them while other threads are in here.
	 */
	if (!PMU_LOAD_ACQUIRE(ready) || !regionTag || !(n = lookup(regionTag, g)) || current(n, &calls, &ns, v) < 0) {
		if (nr_events)
			*nr_events = 0;
		if (time)
			*time = 0;
		if (count)
			*count = 0;
		return;
	}
	if ((b = base_of(n, 0))) {
		calls -= b->calls;
		ns -= b->ns;
		for (int e = 0; e < MAXEV; e++)
			v[e] -= b->v[e];
	}
	if (nr_events && events) {
		ne = gsize[g] < *nr_events ? gsize[g] : *nr_events;
		for (int e = 0; e < ne; e++)
			events[e] = gidx[g][e] >= 0 ? (double)v[gidx[g][e]] : NAN;
	}
	if (nr_events)
		*nr_events = ne;
	if (time)
		*time = (double)ns / 1e9;
	if (count)
		*count = (int)calls;
}

/*
 * LIKWID writes its file for likwid-perfctr here; libpmu-likwid writes
 * libpmu's report (PMU_REPORT, else stderr) unless libpmu's zero-code mode
 * (PMU_EVENTS with one group) writes it at exit. Later marker calls do nothing.
 */
API void likwid_markerClose(void)
{
	const char *rep = secure_getenv("PMU_REPORT");

	if (!PMU_LOAD_ACQUIRE(ready) || !own_report)
		return;
	if (rep && *rep) {
		if (pmu_report_path(rep, NULL) < 0)
			warn("PMU_REPORT", "%s", pmu_errmsg());
	} else if (pmu_report(stderr, NULL) < 0)
		warn("report", "%s", pmu_errmsg());
	/* Called in a serial part, as LIKWID asks: no thread is in a region, the counters can go. */
	PMU_STORE_RELEASE(ready, 0);
	pmu_thread_fini();
}

/*
 * ---- Fortran: use likwid; call likwid_markerInit() and the others ----
 * The names liblikwid exports (lower case, one underscore), gfortran's hidden
 * length of a character argument; trailing blanks are not part of the name.
 */
static const char *fortran_tag(char *buf, size_t cap, const char *s, size_t len)
{
	if (fortran_string(buf, cap, s, len))
		return buf;
	warn("Fortran region name", "%s", "longer than 255 characters");
	return NULL;
}

#define FORTRAN_VOID(fname, cfn)							\
	API void fname(void);								\
	API void fname(void)								\
	{										\
		cfn();									\
	}

#define FORTRAN_TAG(fname, cfn)								\
	API void fname(const char *tag, size_t len);					\
	API void fname(const char *tag, size_t len)					\
	{										\
		char buf[256];								\
		const char *t = fortran_tag(buf, sizeof(buf), tag, len);		\
											\
		if (t)									\
			cfn(t);								\
	}

FORTRAN_VOID(likwid_markerinit_, likwid_markerInit)
FORTRAN_VOID(likwid_markerthreadinit_, likwid_markerThreadInit)
FORTRAN_VOID(likwid_markernextgroup_, likwid_markerNextGroup)
FORTRAN_VOID(likwid_markerclose_, likwid_markerClose)
FORTRAN_TAG(likwid_markerregisterregion_, likwid_markerRegisterRegion)
FORTRAN_TAG(likwid_markerstartregion_, likwid_markerStartRegion)
FORTRAN_TAG(likwid_markerstopregion_, likwid_markerStopRegion)
FORTRAN_TAG(likwid_markerresetregion_, likwid_markerResetRegion)

API void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time, int *count,
				 size_t len);
API void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time, int *count,
				 size_t len)
{
	char buf[256];
	const char *t = fortran_tag(buf, sizeof(buf), tag, len);

	likwid_markerGetRegion(t ? t : "", nr_events, events, time, count);
}
