// SPDX-License-Identifier: MIT
/*
 * libpmu-omp: an OpenMP tool (OMPT, OpenMP 5.0) that makes each parallel
 * region a libpmu region on every thread of its team, from implicit task
 * begin to end, and each worksharing construct (loop, sections, single) a
 * region nested in it. Regions are named after the construct: the enclosing
 * function from the symbol table, and file:line from the debug information
 * where there is some (elfutils' libdwfl when built with it, else dladdr).
 * Loaded by OMP_TOOL_LIBRARIES or preloaded; events and report as zero-code
 * mode's (PMU_EVENTS, PMU_REPORT). See libpmu-omp(7).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

#include <pmu.h>
#include "connector.h"

#define API __attribute__((visibility("default")))

/* ---- OMPT's interface, as the OpenMP 5.0 specification gives it (section 4) ---- */
typedef union {
	uint64_t value;
	void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct {
	ompt_initialize_t initialize;
	ompt_finalize_t finalize;
	ompt_data_t tool_data;
} ompt_start_tool_result_t;
typedef void (*ompt_callback_t)(void);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);

enum { CB_PARALLEL_BEGIN = 3, CB_IMPLICIT_TASK = 7, CB_WORK = 20, CB_SYNC_REGION = 23 };	/* ompt_callbacks_t */
enum { SET_NEVER = 1 };							/* ompt_set_result_t */
enum { SCOPE_BEGIN = 1, SCOPE_END = 2 };				/* ompt_scope_endpoint_t */
enum { TASK_INITIAL = 1 };						/* ompt_task_flag_t */
enum { WORK_LOOP = 1, WORK_TASKLOOP = 7 };				/* ompt_work_t, 1..7 */
enum { SYNC_IMPLICIT = 2, SYNC_IMPLICIT_WORKSHARE = 8, SYNC_IMPLICIT_PARALLEL = 9 };			/* ompt_sync_region_t */

/* ---- names of constructs: one per return address, made once ---- */
#define NAMES 4096	/* distinct constructs named; more share "(other constructs)" */

struct construct {
	_Atomic(const void *) at;	/* its key: the return address, plus the kind << 56 */
	_Atomic(char *) name;
	bool label;			/* a runtime's name for what the team runs (a Kokkos kernel's label) */
};
static struct construct names[NAMES], labels[NAMES], other = { NULL, "(other constructs)", false };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started;		/* ompt_start_tool was called */
static int own_report;		/* we called pmu_thread_init(): we write the report at the end */

#ifdef HAVE_LIBDW
static Dwfl *dwfl;		/* under lock */

/* The line of pc by a walk of m's units, for a compiler that writes no .debug_aranges (clang). */
static const char *dw_line_walk(Dwfl_Module *m, uintptr_t pc, int *line)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(m, &bias);
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Line *l;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_haspc(&cu, pc - bias) > 0)
			return (l = dwarf_getsrc_die(&cu, pc - bias)) && dwarf_lineno(l, line) == 0 ?
			       dwarf_linesrc(l, NULL, NULL) : NULL;
		off = next;
	}
	return NULL;
}

/* The function (and file:line) of code address pc, by libdwfl; 0, or -1 when it knows none. */
static int dw_name(uintptr_t pc, char *buf, size_t size)
{
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_linux_proc_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl_Module *m = NULL;
	const char *fn, *file = NULL;
	int line = 0;

	for (int again = 0; !m && again < 2; again++) {
		/* a module dlopen'ed since the last report: report the process again */
		if (!dwfl || again) {
			if (dwfl)
				dwfl_end(dwfl);
			if (!(dwfl = dwfl_begin(&cb)) || dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
			    dwfl_report_end(dwfl, NULL, NULL) != 0)
				return -1;
		}
		m = dwfl_addrmodule(dwfl, pc);
	}
	if (!m || !(fn = dwfl_module_addrname(m, pc)))
		return -1;
	Dwfl_Line *l = dwfl_module_getsrc(m, pc);
	file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : dw_line_walk(m, pc, &line);
	if (file && line > 0)
		snprintf(buf, size, "%s (%s:%d)", fn, strrchr(file, '/') ? strrchr(file, '/') + 1 : file, line);
	else
		snprintf(buf, size, "%s", fn);
	return 0;
}
#endif

/* The construct at return address ra, named into buf: function (file:line), else the object and offset. */
static void make_name(const void *ra, char *buf, size_t size)
{
	uintptr_t pc = (uintptr_t)ra - 1;	/* the call, not the instruction after it */
	Dl_info di;

#ifdef HAVE_LIBDW
	if (dw_name(pc, buf, size) == 0)
		return;
#endif
	if (dladdr((void *)pc, &di) && di.dli_sname)
		snprintf(buf, size, "%s", di.dli_sname);
	else if (di.dli_fname)
		snprintf(buf, size, "%s+0x%lx", strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 :
			 di.dli_fname, (unsigned long)(pc - (uintptr_t)di.dli_fbase));
	else
		snprintf(buf, size, "%p", ra);
}

/* ompt_work_t's kinds, 0 for a parallel region: the bracket after a region's name */
static const char *const kinds[] = { "parallel", "loop", "sections", "single", "single", "workshare",
				     "distribute", "taskloop" };

/*
 * The construct of kind at return address ra, named "main (t.c:12) [loop]":
 * made once and found without a lock after (open addressing over ra and
 * kind, for a parallel region and its loop may share an address).
 */
static struct construct *construct_of(const void *ra, unsigned kind)
{
	const void *key = (const char *)ra + ((uintptr_t)kind << 56);
	size_t h = ((uintptr_t)key >> 2) * 0x9e3779b97f4a7c15ull >> 52;
	char buf[128], *n;	/* a region name is at most 127 bytes */

	for (size_t i = 0; i < NAMES; i++) {
		size_t k = (h + i) % NAMES;
		const void *at = atomic_load_explicit(&names[k].at, memory_order_acquire);

		if (at && at != key)
			continue;
		if (!at) {
			pthread_mutex_lock(&lock);
			if (!(at = atomic_load_explicit(&names[k].at, memory_order_relaxed))) {
				make_name(ra, buf, sizeof(buf) - 16);
				snprintf(buf + strlen(buf), 16, " [%s]", kinds[kind]);
				n = strdup(buf);
				atomic_store_explicit(&names[k].name, n ? n : "(out of memory)", memory_order_relaxed);
				atomic_store_explicit(&names[k].at, at = key, memory_order_release);
			}
			pthread_mutex_unlock(&lock);
			if (at != key)
				continue;
		}
		return &names[k];
	}
	return &other;
}

/*
 * The construct standing for label (a Kokkos kernel's "fill [for]"): one
 * per distinct label, found by its text without a lock once made.
 */
static struct construct *label_construct(const char *label)
{
	size_t h = 14695981039346656037ull;

	for (const char *p = label; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (size_t i = 0; i < NAMES; i++) {
		struct construct *c = &labels[(h + i) % NAMES];
		const void *at = atomic_load_explicit(&c->at, memory_order_acquire);
		char *n;

		if (at && !strcmp(atomic_load_explicit(&c->name, memory_order_relaxed), label))
			return c;
		if (at)
			continue;
		pthread_mutex_lock(&lock);
		if (!atomic_load_explicit(&c->at, memory_order_relaxed)) {
			n = strdup(label);
			atomic_store_explicit(&c->name, n ? n : "(out of memory)", memory_order_relaxed);
			c->label = true;
			atomic_store_explicit(&c->at, c, memory_order_release);
		}
		pthread_mutex_unlock(&lock);
		if (!strcmp(atomic_load_explicit(&c->name, memory_order_acquire), label))
			return c;
	}
	return &other;
}

static const char *name_of(struct construct *c)
{
	return atomic_load_explicit(&c->name, memory_order_acquire);
}

/* ---- the callbacks: regions on the thread OMPT calls them on ---- */

static void warn_once(const char *what, int r)
{
	static atomic_int said;

	if (r < 0 && !atomic_exchange(&said, 1))
		fprintf(stderr, "libpmu-omp: %s: %s (said once)\n", what, pmu_errmsg());
}

/* libpmu's private interface (the exact version's node): what a thread is inside, as libpmu-kokkos names it. */
extern const char *(*pmu__region_label)(void);

static void on_parallel_begin(ompt_data_t *task, const void *frame, ompt_data_t *parallel, unsigned int req,
			      int flags, const void *ra)
{
	const char *(*label)(void) = __atomic_load_n(&pmu__region_label, __ATOMIC_ACQUIRE);
	const char *l = label ? label() : NULL;

	(void)task, (void)frame, (void)req, (void)flags;
	/* inside a Kokkos kernel: the team counts under the kernel's name */
	parallel->ptr = l ? label_construct(l) : construct_of(ra, 0);
}

/*
 * Each thread's implicit tasks, innermost last: a parallel region's figures
 * on a thread end where its implicit task reaches the region's closing
 * barrier. libomp reports a worker's implicit task end only when the next
 * region starts, which would count the time between regions as well.
 */
#define DEPTH 16
static __thread struct {
	struct construct *c;	/* NULL: deeper than DEPTH, not counted */
	bool open;		/* its region is not ended yet */
	unsigned wbase;		/* the worksharing constructs open on the thread when it began */
} stack[DEPTH];
static __thread unsigned depth;

/*
 * Each thread's worksharing constructs, innermost last: a loop's end may
 * come from another address than its begin, and libomp's GOMP_single_start
 * (gcc's code) reports no end: such a construct ends at the next implicit
 * barrier of its task, or with the task.
 */
static __thread struct construct *work[DEPTH];
static __thread unsigned wdepth;

static void work_close(void)
{
	unsigned base = depth && depth <= DEPTH ? stack[depth - 1].wbase : 0;

	for (; wdepth > base; wdepth--)
		if (wdepth <= DEPTH)
			warn_once("a worksharing construct", pmu_region_end(name_of(work[wdepth - 1])));
}

static void task_close(void)
{
	work_close();
	if (depth && depth <= DEPTH && stack[depth - 1].open) {
		stack[depth - 1].open = false;
		warn_once("a parallel region", pmu_region_end(name_of(stack[depth - 1].c)));
	}
}

static void on_implicit_task(int endpoint, ompt_data_t *parallel, ompt_data_t *task, unsigned int n,
			     unsigned int index, int flags)
{
	(void)task, (void)n;
	if (flags & TASK_INITIAL)	/* the initial thread's own task: the whole program, zero-code's region */
		return;
	if (endpoint == SCOPE_BEGIN) {
		struct construct *c = parallel ? parallel->ptr : NULL;
		/* a kernel's own thread (the team's first) counts in the kernel's region already */
		bool count = c && !(c->label && index == 0);

		if (depth < DEPTH)
			stack[depth] = (typeof(stack[0])){ c, count, wdepth };
		depth++;
		if (count && depth <= DEPTH)
			warn_once("a parallel region", pmu_region_begin(name_of(c)));
	} else if (endpoint == SCOPE_END && depth) {
		task_close();
		depth--;
	}
}

/*
 * The barrier closing a parallel region: OpenMP 5.1's kind, or 5.0's
 * implicit barrier at the region's own address (the primary thread) or at
 * none (the workers, in libomp); a loop's closing barrier has the loop's.
 */
static void on_sync_region(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task, const void *ra)
{
	(void)parallel, (void)task;
	if (endpoint != SCOPE_BEGIN || !depth || depth > DEPTH || !stack[depth - 1].c)
		return;
	if (kind == SYNC_IMPLICIT || kind == SYNC_IMPLICIT_WORKSHARE)
		work_close();
	if (kind == SYNC_IMPLICIT_PARALLEL ||
	    (kind == SYNC_IMPLICIT && (!ra || ra == atomic_load_explicit(&stack[depth - 1].c->at, memory_order_relaxed))))
		task_close();
}

static void on_work(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task, uint64_t count, const void *ra)
{
	(void)parallel, (void)task, (void)count;
	if (kind < WORK_LOOP || kind > WORK_TASKLOOP)
		return;
	if (endpoint == SCOPE_BEGIN) {
		struct construct *c = construct_of(ra, (unsigned)kind);

		if (wdepth < DEPTH) {
			work[wdepth] = c;
			warn_once("a worksharing construct", pmu_region_begin(name_of(c)));
		}
		wdepth++;
	} else if (endpoint == SCOPE_END && wdepth > (depth && depth <= DEPTH ? stack[depth - 1].wbase : 0)) {
		if (--wdepth < DEPTH)
			warn_once("a worksharing construct", pmu_region_end(name_of(work[wdepth])));
	}
}

/* ---- start and end ---- */

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");

	(void)device, (void)data;
	if (!set || set(CB_PARALLEL_BEGIN, (ompt_callback_t)on_parallel_begin) == SET_NEVER ||
	    set(CB_IMPLICIT_TASK, (ompt_callback_t)on_implicit_task) == SET_NEVER) {
		fprintf(stderr, "libpmu-omp: the OpenMP runtime does not report parallel regions to tools: "
			"nothing is counted\n");
		return 0;
	}
	if (set(CB_SYNC_REGION, (ompt_callback_t)on_sync_region) == SET_NEVER)
		fprintf(stderr, "libpmu-omp: the OpenMP runtime does not report barriers: a worker's figures run to "
			"the end of its implicit task\n");
	if (set(CB_WORK, (ompt_callback_t)on_work) == SET_NEVER)
		fprintf(stderr, "libpmu-omp: the OpenMP runtime does not report worksharing constructs: "
			"parallel regions alone are counted\n");
	own_report = pmu_connector_start("libpmu-omp", "parallel regions");
	return 1;
}

/* At the runtime's end: our report, unless zero-code mode writes its own at exit. */
static void finalize(ompt_data_t *data)
{
	(void)data;
	if (own_report)
		pmu_connector_end("libpmu-omp");
	own_report = 0;
}

API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	static ompt_start_tool_result_t res = { initialize, finalize, { 0 } };

	(void)omp_version, (void)runtime_version;
	started = 1;
	return &res;
}

/* Preloaded into a program whose OpenMP runtime never asked for a tool: said once, at exit. */
__attribute__((destructor)) static void no_ompt(void)
{
	void *gomp;

	if (started)
		return;
	gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
	fprintf(stderr, "libpmu-omp: no OpenMP runtime with a tool interface (OMPT) started it: nothing was "
		"counted%s\n", gomp ? " (GCC's libgomp has no OMPT: run the program on LLVM's libomp, "
		"LD_PRELOAD=libomp.so.5, whose libgomp ABI gcc's code calls)" : "");
	if (gomp)
		dlclose(gomp);
}
