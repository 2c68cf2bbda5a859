// SPDX-License-Identifier: MIT
/*
 * libpmu-papi: PAPI 7.0's high-level API (PAPI_hl_region_begin, PAPI_hl_read,
 * PAPI_hl_region_end, PAPI_hl_stop) on libpmu's per-thread counters, written
 * from PAPI's manual pages and the output its tools read. Events come from
 * PAPI_EVENTS, mapped to libpmu's names; at exit every call of every region
 * goes to PAPI_OUTPUT_DIRECTORY/papi_hl_output/rank_<rank>.json in PAPI's
 * schema. With PMU_REPORT set the regions also go through libpmu's region
 * layer and its report is written there at exit. See libpmu-papi(7).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <pmu.h>
#include "plugin.h"
#include "base/internal.h"	/* header-only: locks, atomics, clocks */
#include "fortran.h"
#include "papi_protos.h"

#define API __attribute__((visibility("default")))
#define MAXEV 32

/* PAPI's preset names with a perf generic event behind them (libpmu-papi(7) has the table). */
static const struct { const char *papi, *pmu; } presets[] = {
	{ "PAPI_TOT_INS", "instructions" },
	{ "PAPI_TOT_CYC", "cycles" },
	{ "PAPI_REF_CYC", "ref-cycles" },
	{ "PAPI_BR_INS", "branches" },
	{ "PAPI_BR_MSP", "branch-misses" },
	{ "PAPI_L1_DCM", "L1-dcache-load-misses" },
	{ "PAPI_L1_DCA", "L1-dcache-loads" },
	{ "PAPI_L1_ICM", "L1-icache-load-misses" },
	{ "PAPI_L3_TCM", "cache-misses" },
	{ "PAPI_L3_TCA", "cache-references" },
	{ "PAPI_TLB_DM", "dTLB-load-misses" },
	{ "PAPI_TLB_IM", "iTLB-load-misses" },
	{ "PAPI_STL_ICY", "stalled-cycles-frontend" },
	{ "PAPI_RES_STL", "stalled-cycles-backend" },
};

/* perf's names as PAPI spells them after perf:: (libpfm4's perf PMU), and their aliases. */
static const struct { const char *papi, *pmu; } perf_names[] = {
	{ "PERF_COUNT_HW_CPU_CYCLES", "cycles" }, { "CPU-CYCLES", "cycles" },
	{ "PERF_COUNT_HW_INSTRUCTIONS", "instructions" },
	{ "PERF_COUNT_HW_CACHE_REFERENCES", "cache-references" },
	{ "PERF_COUNT_HW_CACHE_MISSES", "cache-misses" },
	{ "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "branches" }, { "BRANCH-INSTRUCTIONS", "branches" },
	{ "PERF_COUNT_HW_BRANCH_MISSES", "branch-misses" },
	{ "PERF_COUNT_HW_BUS_CYCLES", "bus-cycles" },
	{ "PERF_COUNT_HW_REF_CPU_CYCLES", "ref-cycles" },
	{ "PERF_COUNT_SW_CPU_CLOCK", "cpu-clock" },
	{ "PERF_COUNT_SW_TASK_CLOCK", "task-clock" },
	{ "PERF_COUNT_SW_PAGE_FAULTS", "page-faults" }, { "FAULTS", "page-faults" },
	{ "PERF_COUNT_SW_CONTEXT_SWITCHES", "context-switches" }, { "CS", "context-switches" },
	{ "PERF_COUNT_SW_CPU_MIGRATIONS", "cpu-migrations" }, { "MIGRATIONS", "cpu-migrations" },
	{ "PERF_COUNT_SW_PAGE_FAULTS_MIN", "minor-faults" },
	{ "PERF_COUNT_SW_PAGE_FAULTS_MAJ", "major-faults" },
	{ "PERF_COUNT_SW_ALIGNMENT_FAULTS", "alignment-faults" },
	{ "PERF_COUNT_SW_EMULATION_FAULTS", "emulation-faults" },
};

/* PAPI's default events (PAPI_EVENTS unset, or none of it usable), those that open. */
static const char *const default_events[] = {
	"perf::TASK-CLOCK", "PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_FP_INS", "PAPI_FP_OPS",
};

/*
 * One call of a region in one thread: its begin values (then, once ended,
 * its differences) as cycles, ns and each event, and PAPI_hl_read's
 * differences. Slots are indexes into the thread's array, which grows.
 */
struct call {
	const char *name;	/* interned */
	int64_t parent;		/* the call it was begun in, -1 at the top */
	int open;
	unsigned nreads;
	uint64_t *reads;	/* nreads x nval */
	uint64_t v[];		/* nval */
};

/* A thread's state: kept after the thread exits, for the output at exit. */
struct thr {
	struct thr *next;
	pid_t tid;
	int stopped;
	int exited;	/* set by the thread's key destructor */
	size_t ncalls, cap;
	char *calls;		/* ncalls slots of slot_size */
	int64_t *stack;		/* open calls, innermost last */
	size_t depth, stack_cap;
	struct { const char *ptr, *name; } cache[64];	/* caller's pointer -> interned name */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int nev, nval;			/* events; values per call: cycles, ns, events */
static size_t slot_size;
static char *ev_papi[MAXEV];		/* the events' names as PAPI_EVENTS gave them */
static double ev_factor[MAXEV];		/* what the output multiplies each event's counts by (nJ, uJ), 0: 1 */
static int use_regions;			/* PMU_REPORT set: libpmu's region layer too */
static int own_layer;			/* the per-thread layer was set up here, not before */
static char *pmu_report_to;
static int deactivated;		/* a misuse: no output, as PAPI does */
static int begun;		/* a region has begun in this process */
static int verbose;
static struct thr *threads;
static __thread struct thr *self __attribute__((tls_model("initial-exec")));	/* as libpmu's: no __tls_get_addr */
static pthread_key_t exit_key;		/* tells the output at exit which threads are gone */
static int have_key;
static char **names;			/* the interned region names */
static size_t nnames, names_cap;

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("libpmu-papi: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * PAPI's rapl and powercap components' energy in libpmu's power PMU, where
 * the mapping is exact: the kernel counts every RAPL domain in 2^-32 J, and
 * libpmu sums a PMU's packages, so PACKAGE0 (ZONE0) is exact on a machine of
 * one package. PAPI gives rapl's energy in nJ and powercap's in uJ.
 */
static const struct { const char *papi, *pmu; } rapl[] = {
	{ "PACKAGE_ENERGY", "power/energy-pkg/" }, { "DRAM_ENERGY", "power/energy-ram/" },
	{ "PP0_ENERGY", "power/energy-cores/" }, { "PP1_ENERGY", "power/energy-gpu/" },
	{ "PSYS_ENERGY", "power/energy-psys/" },
};

static const char *map_energy(const char *papi, double *factor, const char **why)
{
	const char *unit = strncmp(papi, "rapl:::", 7) ? NULL : papi + 7, *zone;
	int ncpu = 0, cpus[2];

	*why = "not an energy event libpmu maps exactly (libpmu-papi(7) has the table)";
	if (!unit && !strcmp(papi, "powercap:::ENERGY_UJ:ZONE0")) {
		unit = "PACKAGE_ENERGY:PACKAGE0";
		*factor = 1e6 / 4294967296.0;
	} else {
		*factor = 1e9 / 4294967296.0;
	}
	if (!unit || !(zone = strchr(unit, ':')) || strcmp(zone, ":PACKAGE0"))
		return NULL;
	ncpu = (int)pmu__pmu_cpus("power", cpus, 2);
	if (ncpu > 1) {
		*why = "libpmu sums the power PMU's packages, and this machine has more than one";
		return NULL;
	}
	for (size_t i = 0; i < sizeof(rapl) / sizeof(rapl[0]); i++)
		if (!strncmp(unit, rapl[i].papi, (size_t)(zone - unit)) && !rapl[i].papi[zone - unit])
			return rapl[i].pmu;
	return NULL;
}

/* The libpmu name of a PAPI event name, in buf; NULL when there is none. */
static const char *map_event(const char *papi, char *buf, size_t len)
{
	if (!strncmp(papi, "PAPI_", 5)) {
		for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
			if (!strcmp(papi, presets[i].papi))
				return presets[i].pmu;
		return NULL;
	}
	if (!strncmp(papi, "perf::", 6)) {
		const char *n = papi + 6;

		for (size_t i = 0; i < sizeof(perf_names) / sizeof(perf_names[0]); i++)
			if (!strcasecmp(n, perf_names[i].papi))
				return perf_names[i].pmu;
		/* TASK-CLOCK, PAGE-FAULTS, L1-DCACHE-LOAD-MISSES: perf's own names in capitals. */
		if (strlen(n) + 1 > len)
			return NULL;
		for (size_t i = 0; n[i]; i++)
			buf[i] = (char)tolower((unsigned char)n[i]);
		buf[strlen(n)] = 0;
		if (!strncmp(buf, "l1-", 3))
			buf[0] = 'L';
		else if (!strncmp(buf, "llc-", 4))
			memcpy(buf, "LLC", 3);
		else if (!strncmp(buf, "dtlb-", 5) || !strncmp(buf, "itlb-", 5))
			memcpy(buf + 1, "TLB", 3);
		return buf;
	}
	if (!strncmp(papi, "perf_raw::", 10)) {	/* perf_raw::r0123 or perf_raw::0x0123 */
		const char *n = papi + 10;

		if (*n == 'r' || *n == 'R')
			n++;
		else if (n[0] == '0' && (n[1] == 'x' || n[1] == 'X'))
			n += 2;
		if (!*n || strlen(n) + 2 > len)
			return NULL;
		snprintf(buf, len, "r%s", n);
		return buf;
	}
	/* Anything else: a libpfm4 name (pmu::event), where libpmu has libpfm4 built in. */
	return strstr(papi, "::") ? papi : NULL;
}

/* Adds PAPI event name e when it maps and opens; 0, or -1 when it is left out. */
static int add_event(const char *e, char *list, size_t len)
{
	PMU_OPTS(o, .flags = PMU_SOCKET_WIDE);	/* as libpmu's threads open them */
	bool energy = !strncmp(e, "rapl:::", 7) || !strncmp(e, "powercap:::", 11);
	char buf[256];
	const char *why = "does not exist or is not supported on this machine";
	double factor = 0;
	const char *m = energy ? map_energy(e, &factor, &why) : map_event(e, buf, sizeof(buf));
	struct pmu_set *s;

	if (nev == MAXEV) {
		warn("PAPI_EVENTS: \"%s\" left out: at most %d events", e, MAXEV);
		return -1;
	}
	for (int i = 0; i < nev; i++)
		if (!strcmp(ev_papi[i], e))
			return -1;
	if (!m) {
		warn("PAPI_EVENTS: \"%s\" %s: left out", e, why);
		return -1;
	}
	if (pmu_open_opts(&s, m, &o) < 0) {
		warn("PAPI_EVENTS: \"%s\" (%s) cannot be counted here: %s: left out", e, m, pmu_errmsg());
		return -1;
	}
	pmu_close(s);
	if (strlen(list) + strlen(m) + 2 > len || !(ev_papi[nev] = strdup(e)))
		return -1;
	ev_factor[nev] = factor;
	if (*list)
		strcat(list, ",");
	strcat(list, m);
	nev++;
	return 0;
}

static void output_and_close(void);

static void thread_gone(void *p)
{
	PMU_STORE_RELEASE(((struct thr *)p)->exited, 1);
}

/*
 * As PAPI 7.0 at its first call: an output directory older than this second,
 * from an earlier run, is renamed papi_hl_output-YYYYMMDD-HHMMSS, so that a run
 * never adds its files to another's. A newer one is a sibling rank's: kept.
 */
static void set_aside_old_output(void)
{
	const char *base = secure_getenv("PAPI_OUTPUT_DIRECTORY");
	char dir[4096], old[4200], when[32];
	time_t now = time(NULL);
	struct stat st;
	struct tm tm;

	snprintf(dir, sizeof(dir), "%s/papi_hl_output", base && *base ? base : ".");
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_mtime >= now || !localtime_r(&now, &tm))
		return;
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(old, sizeof(old), "%s-%s", dir, when);
	if (rename(dir, old) < 0 && verbose)
		warn("%s: cannot rename it %s: %s", dir, old, strerror(errno));
}

static void init_whole(void)
{
	const char *env = secure_getenv("PAPI_EVENTS"), *rep = secure_getenv("PMU_REPORT");
	char list[4096] = "";
	int r;

	verbose = secure_getenv("PAPI_HL_VERBOSE") != NULL;
	set_aside_old_output();
	if (env && *env) {
		char *copy = strdup(env), *save = NULL;

		for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
			while (isspace((unsigned char)*t))
				t++;
			char *eq = strchr(t, '=');	/* PAPI's "name=instant": taken as a difference */
			if (eq)
				*eq = 0;
			if (*t)
				add_event(t, list, sizeof(list));
		}
		free(copy);
		if (!nev)
			warn("PAPI_EVENTS: none of \"%s\" can be counted: the default events instead", env);
	}
	if (!nev)
		for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++) {
			char buf[256];
			const char *m = map_event(default_events[i], buf, sizeof(buf));
			struct pmu_set *s;

			if (m && pmu_open(&s, m) == 0) {	/* defaults that do not open are left out quietly */
				pmu_close(s);
				add_event(default_events[i], list, sizeof(list));
			}
		}
	own_layer = nev && pmu_thread_event_count() == 0;
	if (nev && (r = pmu_thread_init(list)) < 0) {
		warn("events %s: %s%s", list, pmu_errmsg(),
		     r == -EBUSY ? " (PMU_EVENTS is set: libpmu counts those; unset it with libpmu-papi)" : "");
		PMU_WRITE_ONCE(deactivated, 1);
		return;
	}
	if (!nev)
		warn("no event can be counted here: regions get only cycles and real_time_nsec");
	nval = 2 + nev;
	slot_size = (sizeof(struct call) + (size_t)nval * sizeof(uint64_t) + 15) & ~(size_t)15;
	if (rep && *rep && nev) {
		use_regions = 1;
		pmu_report_to = strdup(rep);
	}
	if (secure_getenv("PAPI_MULTIPLEX") && verbose)
		warn("PAPI_MULTIPLEX: the kernel multiplexes and libpmu scales by itself");
	if (verbose)
		fprintf(stderr, "PAPI-HL Info: libpmu-papi has been initiated, events %s\n", *list ? list : "(none)");
	have_key = pthread_key_create(&exit_key, thread_gone) == 0;
	atexit(output_and_close);
}

/* PAPI's set-up, run whole: a cancel acting inside would leave it half done, and pthread_once() runs it again. */
static void init(void)
{
	int cs = pmu__nocancel();

	init_whole();
	pmu__cancel_restore(cs);
}

static inline uint64_t now_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return pmu__mono_ns();
#endif
}

/*
 * libpmu's region layer failed (a region ended that is not the innermost,
 * which PAPI allows and libpmu does not): said once; PAPI's figures go on.
 */
static void region_layer_failed(const char *name)
{
	static int said;

	if (PMU_ONCE(said))
		warn("PMU_REPORT: region \"%s\": %s: libpmu's report leaves such calls out", name, pmu_errmsg());
}

/*
 * The region calls, all in these two: a read of the thread's counters for the
 * per-call figures PAPI writes, between the two reads of the clocks (so that
 * the wall time spans the counts), and, when libpmu's report is asked for, its
 * region layer by name, outside both (its own first-call allocations are not
 * counted in PAPI's figures). 0, or -1 when the counters cannot be read.
 */
static inline int reg_enter(const char *name, uint64_t *v)
{
	if (use_regions && pmu_region_begin(name) < 0)
		region_layer_failed(name);
	v[1] = pmu__mono_ns();
	v[0] = now_cycles();
	return nev && pmu_thread_read(v + 2) < 0 ? -1 : 0;
}

static inline int reg_exit(const char *name, uint64_t *v)
{
	int r = nev && pmu_thread_read(v + 2) < 0 ? -1 : 0;

	v[0] = now_cycles();
	v[1] = pmu__mono_ns();
	if (use_regions && pmu_region_end(name) < 0)
		region_layer_failed(name);
	return r;
}

static struct thr *thread_state(void)
{
	struct thr *t;
	int cs;

	if (self)
		return self;
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tid = (pid_t)syscall(SYS_gettid);
	cs = pmu__lock(&lock);
	t->next = threads;
	threads = t;
	pmu__unlock(&lock, cs);
	if (have_key)
		pthread_setspecific(exit_key, t);
	return self = t;
}

/* The interned copy of name: the per-thread cache by pointer, then the table under the lock. */
static const char *intern(struct thr *t, const char *name)
{
	unsigned h = (unsigned)(((uintptr_t)name >> 3) & 63);
	const char *n = NULL;
	int cs;

	if (t->cache[h].ptr == name && !strcmp(t->cache[h].name, name))
		return t->cache[h].name;
	cs = pmu__lock(&lock);
	for (size_t i = 0; i < nnames && !n; i++)
		if (!strcmp(names[i], name))
			n = names[i];
	if (!n && (nnames < names_cap || (names = realloc(names, (names_cap = names_cap * 2 + 16) * sizeof(*names))))) {
		if ((names[nnames] = strdup(name)))
			n = names[nnames++];
	}
	pmu__unlock(&lock, cs);
	if (n) {
		t->cache[h].ptr = name;
		t->cache[h].name = n;
	}
	return n;
}

static inline struct call *slot(struct thr *t, int64_t i)
{
	return (struct call *)(t->calls + (size_t)i * slot_size);
}

/* A misuse, as PAPI treats one: a message, no output at exit, later calls fail. */
static int misuse(const char *fn, const char *region)
{
	if (!PMU_READ_ONCE(begun)) {
		/* before any region began, PAPI 7.0 only refuses the call */
		warn("%s: region \"%s\": no region has begun yet: PAPI_EMISC", fn, region);
		return PAPI_EMISC;
	}
	warn("%s: region \"%s\" is not open in this thread: output generation is deactivated!", fn, region);
	PMU_WRITE_ONCE(deactivated, 1);
	return PAPI_EINVAL;
}

static struct thr *enter(void)
{
	pthread_once(&once, init);
	return PMU_READ_ONCE(deactivated) ? NULL : thread_state();
}

API int PAPI_hl_region_begin(const char *region)
{
	struct thr *t = enter();
	const char *name;
	struct call *c;

	if (!t)
		return PMU_READ_ONCE(deactivated) ? PAPI_EMISC : PAPI_ENOMEM;
	if (!region || !*region)
		return PAPI_EINVAL;
	if (!(name = intern(t, region)))
		return PAPI_ENOMEM;
	if (t->ncalls == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char *p = realloc(t->calls, cap * slot_size);

		if (!p)
			return PAPI_ENOMEM;
		t->calls = p;
		t->cap = cap;
	}
	if (t->depth == t->stack_cap) {
		size_t cap = t->stack_cap ? t->stack_cap * 2 : 16;
		int64_t *p = realloc(t->stack, cap * sizeof(*p));

		if (!p)
			return PAPI_ENOMEM;
		t->stack = p;
		t->stack_cap = cap;
	}
	c = slot(t, (int64_t)t->ncalls);
	c->name = name;
	c->parent = t->depth ? t->stack[t->depth - 1] : -1;
	c->open = 1;
	c->nreads = 0;
	c->reads = NULL;
	if (reg_enter(name, c->v) < 0)
		return PAPI_ESYS;
	PMU_WRITE_ONCE(begun, 1);
	t->stack[t->depth++] = (int64_t)t->ncalls++;
	t->stopped = 0;
	return PAPI_OK;
}

/* The innermost open call of name in thread t, or -1. */
static int64_t find_open(struct thr *t, const char *name, size_t *depth)
{
	for (size_t d = t->depth; d-- > 0;)
		if (slot(t, t->stack[d])->name == name) {
			*depth = d;
			return t->stack[d];
		}
	return -1;
}

#define READ_IGNORED INT64_MIN	/* open_call(): a read PAPI ignores */

/*
 * The thread's innermost open call of region, for PAPI_hl_read and
 * PAPI_hl_region_end (fn): its index, and its depth in *depth; else a PAPI
 * code (negative), a region not open being a misuse.
 */
static int64_t open_call(struct thr **t, const char *region, const char *fn, size_t *depth)
{
	const char *name;
	int64_t i;

	if (!(*t = enter()))
		return PMU_READ_ONCE(deactivated) ? PAPI_EMISC : PAPI_ENOMEM;
	if (!region || !(name = intern(*t, region)) || (i = find_open(*t, name, depth)) < 0) {
		/* PAPI 7.0 ignores a read of a region that is not open (papi_hl.c, REGION_READ) */
		if (region && PMU_READ_ONCE(begun) && !strcmp(fn, "PAPI_hl_read")) {
			warn("PAPI_hl_read: region \"%s\" is not open in this thread: ignored", region);
			return READ_IGNORED;
		}
		return misuse(fn, region ? region : "(null)");
	}
	return i;
}

API int PAPI_hl_read(const char *region)
{
	uint64_t v[2 + MAXEV];
	struct thr *t;
	struct call *c;
	size_t d;
	int64_t i = open_call(&t, region, "PAPI_hl_read", &d);

	if (i == READ_IGNORED)
		return PAPI_OK;
	if (i < 0)
		return (int)i;
	if (nev && pmu_thread_read(v + 2) < 0)
		return PAPI_ESYS;
	v[1] = pmu__mono_ns();
	v[0] = now_cycles();
	c = slot(t, i);
	/* a read's values are one element: PAPI_hl_read in a loop costs no copy of them all each time */
	if (pmu__grow(&c->reads, c->nreads, (size_t)nval * sizeof(uint64_t)) < 0)
		return PAPI_ENOMEM;
	for (int k = 0; k < nval; k++)
		c->reads[c->nreads * (size_t)nval + k] = v[k] - c->v[k];
	c->nreads++;
	return PAPI_OK;
}

API int PAPI_hl_region_end(const char *region)
{
	uint64_t v[2 + MAXEV];
	struct thr *t;
	struct call *c;
	size_t d;
	int64_t i = open_call(&t, region, "PAPI_hl_region_end", &d);

	if (i < 0)
		return (int)i;
	c = slot(t, i);
	if (reg_exit(c->name, v) < 0)
		return PAPI_ESYS;
	for (int k = 0; k < nval; k++)
		c->v[k] = v[k] - c->v[k];
	c->open = 0;
	memmove(t->stack + d, t->stack + d + 1, (t->depth - d - 1) * sizeof(*t->stack));
	t->depth--;
	return PAPI_OK;
}

API int PAPI_hl_stop(void)
{
	pthread_once(&once, init);
	if (PMU_READ_ONCE(deactivated) || !self || self->stopped)
		return PAPI_ENOEVNT;
	if (self->depth)
		return PAPI_EINVAL;	/* not inside a region, says PAPI_hl_stop(3) */
	self->stopped = 1;
	return PAPI_OK;
}

/* ---- output at exit ---- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	if (!s[strcspn(s, "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f")]) {
		fputs(s, f);	/* nothing to escape: the usual case */
		fputc('"', f);
		return;
	}
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* Value k of a call (cycles, ns, then the events) as PAPI gives it: energy in its unit (nJ, uJ). */
static unsigned long long out_value(int k, uint64_t v)
{
	double f = k >= 2 ? ev_factor[k - 2] : 0;

	return f ? (unsigned long long)((double)v * f) : (unsigned long long)v;
}

static void json_value(FILE *f, const struct call *c, int k)
{
	if (!c->nreads) {
		fprintf(f, "\"%llu\"", out_value(k, c->v[k]));
		return;
	}
	fprintf(f, "{\"region_value\":\"%llu\"", out_value(k, c->v[k]));
	for (unsigned r = 0; r < c->nreads; r++)
		fprintf(f, ",\"read_%u\":\"%llu\"", r + 1, out_value(k, c->reads[r * (size_t)nval + k]));
	fputc('}', f);
}

/* The first line of /proc/cpuinfo starting with key, its value into buf; "" when none. */
static void cpuinfo(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	*buf = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, strlen(key)) || !colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

/* The CPU's highest or lowest rate in MHz: cpufreq's, else /proc/cpuinfo's current one. */
static long cpu_mhz(const char *which)
{
	char path[128], buf[64];
	FILE *f;
	long khz;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_%s_freq", which);
	if ((f = fopen(path, "re"))) {
		int ok = fscanf(f, "%ld", &khz) == 1;

		fclose(f);
		if (ok)
			return khz / 1000;
	}
	cpuinfo("cpu MHz", buf, sizeof(buf));
	return atol(buf);
}

static void write_compact(FILE *f)
{
	static const char *const fixed[] = { "cycles", "real_time_nsec" };
	struct thr **list;
	char model[256];
	size_t n = 0;

	/* PAPI's header: its version and the processor, as its output has them. */
	cpuinfo("model name", model, sizeof(model));
	fprintf(f, "{\"papi_version\":\"7.0.0.0\",\"cpu_info\":");
	json_str(f, model);
	fprintf(f, ",\"max_cpu_rate_mhz\":\"%ld\",\"min_cpu_rate_mhz\":\"%ld\",\"event_definitions\":{",
		cpu_mhz("max"), cpu_mhz("min"));
	for (int i = 0; i < nev; i++) {
		fprintf(f, "%s", i ? "," : "");
		json_str(f, ev_papi[i]);
		fprintf(f, ":{\"component\":\"%s\",\"type\":\"delta\"}", !strncmp(ev_papi[i], "rapl:::", 7) ? "rapl" :
			!strncmp(ev_papi[i], "powercap:::", 11) ? "powercap" : "perf_event");
	}
	fprintf(f, "},\"threads\":{");
	/* The oldest thread first. */
	for (struct thr *t = threads; t; t = t->next)
		n++;
	if (!(list = calloc(n ? n : 1, sizeof(*list)))) {
		fprintf(f, "}}\n");
		return;
	}
	n = 0;
	for (struct thr *t = threads; t; t = t->next)
		list[n++] = t;
	/* Threads are numbered from 0 in the order they began their first region, as PAPI does. */
	for (size_t ti = n, first = 1, num = 0; ti-- > 0;) {
		struct thr *t = list[ti];
		int any = 0;

		for (size_t i = 0; i < t->ncalls; i++)
			any |= !slot(t, (int64_t)i)->open;
		if (!any)
			continue;
		fprintf(f, "%s\"%zu\":{\"regions\":{", first ? "" : ",", num++);
		first = 0;
		for (size_t i = 0, firstr = 1; i < t->ncalls; i++) {
			const struct call *c = slot(t, (int64_t)i);

			if (c->open)
				continue;
			fprintf(f, "%s\"%zu\":{\"name\":", firstr ? "" : ",", i);
			firstr = 0;
			json_str(f, c->name);
			fprintf(f, ",\"parent_region_id\":\"%lld\"", (long long)c->parent);
			for (int k = 0; k < nval; k++) {
				fputc(',', f);
				json_str(f, k < 2 ? fixed[k] : ev_papi[k - 2]);
				fputc(':', f);
				json_value(f, c, k);
			}
			fputc('}', f);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "}}\n");
	free(list);
}

/*
 * The output laid out as PAPI 7.0 lays its own out: one member a line,
 * two spaces of indent a level, "key":value with no space.
 */
static void write_json(FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int depth = 0, in_str = 0;

	if (!m) {
		write_compact(f);
		return;
	}
	write_compact(m);
	if (fclose(m) != 0) {
		free(buf);
		write_compact(f);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (in_str) {
			fputc(c, f);
			if (c == '\\' && i + 1 < len)
				fputc(buf[++i], f);
			else if (c == '"')
				in_str = 0;
			continue;
		}
		switch (c) {
		case '"':
			in_str = 1;
			fputc(c, f);
			break;
		case '{':
			fprintf(f, "{\n%*s", 2 * ++depth, "");
			break;
		case '}':
			fprintf(f, "\n%*s}", 2 * --depth, "");
			break;
		case ',':
			fprintf(f, ",\n%*s", 2 * depth, "");
			break;
		case '\n':
			break;
		default:
			fputc(c, f);
		}
	}
	fputc('\n', f);
	free(buf);
}

/*
 * The process's umask, for the mode fopen() would have given the file: read
 * from /proc (umask() itself would change it for the other threads a moment).
 */
static mode_t current_umask(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	unsigned m = 022;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &m) == 1)
			break;
	if (f)
		fclose(f);
	return (mode_t)m;
}

/* The MPI rank as the launchers give it, else the process ID. */
long pmu__mpi_rank(void);	/* libpmu's own (its private interface), as its reports use it */

static long rank_of(void)
{
	long r = pmu__mpi_rank();

	return r >= 0 ? r : (long)getpid();
}

static void write_output(void)
{
	const char *base = secure_getenv("PAPI_OUTPUT_DIRECTORY"), *rep = secure_getenv("PAPI_REPORT");
	char dir[4096], path[4200], tmp[4300];
	int any = 0, fd = -1;
	FILE *f;

	if (use_regions && pmu_report_to && pmu_report_path(pmu_report_to, NULL) < 0)
		warn("PMU_REPORT=%s: %s", pmu_report_to, pmu_errmsg());
	if (PMU_READ_ONCE(deactivated))
		return;
	for (struct thr *t = threads; t && !any; t = t->next)
		any = t->ncalls > 0;
	if (!any)
		return;
	snprintf(dir, sizeof(dir), "%s/papi_hl_output", base && *base ? base : ".");
	if (base && *base)
		mkdir(base, 0777);
	/* an earlier run's was set aside at the first call; a sibling rank's is shared */
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		warn("%s: %s", dir, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/rank_%06ld.json", dir, rank_of());
	/* Written beside it, then renamed into place: a reader never sees half a file. */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0 || !(f = fdopen(fd, "w"))) {
		warn("%s: %s", fd < 0 ? tmp : path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return;
	}
	fchmod(fd, 0666 & ~current_umask());
	write_json(f);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		warn("%s: %s", path, strerror(errno));
		unlink(tmp);
	}
	if (rep && *rep && strcmp(rep, "0")) {
		fputs("\n\nPAPI-HL Output:\n", stdout);
		write_json(stdout);
		fputc('\n', stdout);
		fflush(stdout);
	}
	if (verbose)
		fprintf(stderr, "PAPI-HL Info: output written to %s\n", path);
}

/*
 * After the output: libpmu's counters are closed when no other thread that
 * measured is left (the exiting thread's would otherwise stay open to the end).
 */
static void output_and_close(void)
{
	int others = 0;

	write_output();
	for (struct thr *t = threads; t; t = t->next)
		others |= t != self && !PMU_LOAD_ACQUIRE(t->exited);
	if (!others && own_layer)
		pmu_thread_fini();
}

/*
 * ---- Fortran: call PAPIf_hl_region_begin(name, check) and the others ----
 * gfortran's names (lower case, one underscore) and its hidden length of a
 * character argument; trailing blanks are not part of the name.
 */
#define FORTRAN_NAMED(fname, cfn)							\
	API void fname(const char *name, int *check, size_t len);			\
	API void fname(const char *name, int *check, size_t len)			\
	{										\
		char buf[256];								\
		bool ok = fortran_string(buf, sizeof(buf), name, len);			\
		*check = ok ? cfn(buf) : PAPI_EINVAL;					\
	}

FORTRAN_NAMED(papif_hl_region_begin_, PAPI_hl_region_begin)
FORTRAN_NAMED(papif_hl_read_, PAPI_hl_read)
FORTRAN_NAMED(papif_hl_region_end_, PAPI_hl_region_end)

API void papif_hl_stop_(int *check);
API void papif_hl_stop_(int *check)
{
	*check = PAPI_hl_stop();
}
