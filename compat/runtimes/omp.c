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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

#include <pmu.h>
#include "plugin.h"
#include "base/internal.h"	/* header-only: locks, atomics, clocks */
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
	const void *at;			/* its key: the return address, plus the kind << 56 */
	char *name;
	bool label;			/* a runtime's name for what the team runs (a Kokkos kernel's label) */
	bool tail;			/* a parallel region reached by a tail call: named once code inside runs */
	bool bare;			/* KIND_OUTLINED: code at ra is not outlined from a construct, names none */
};
static struct construct names[NAMES], labels[NAMES], other = { NULL, "(other constructs)", false, false, false };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started;		/* ompt_start_tool was called */
static int own_report;		/* we called pmu_thread_init(): we write the report at the end */

/* A construct's place: the function as its source names it, and "file:line" where debug information gives it. */
struct where {
	char fn[512];
	char loc[192];
	uintptr_t start;	/* the function's first byte, 0 when unknown */
	bool outlined;		/* the function is a compiler's outlined construct */
};

#ifdef HAVE_LIBDW
static Dwfl *dwfl;		/* under lock */

/* The unit holding pc, by a walk of m's units where no .debug_aranges says (clang writes none). */
static bool dw_unit(Dwfl_Module *m, uintptr_t pc, Dwarf_Die *cu, Dwarf_Addr *bias)
{
	Dwarf_Die *d = dwfl_module_addrdie(m, pc, bias);
	Dwarf *dw = dwfl_module_getdwarf(m, bias);
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (d) {
		*cu = *d;
		return true;
	}
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, pc - *bias) > 0)
			return true;
		off = next;
	}
	return false;
}

/* die's DW_AT_decl_file, through the unit's file table (libdw's dwarf_decl_file() takes no DWARF 5 index 0). */
static const char *dw_decl_file(Dwarf_Die *die, Dwarf_Files *files)
{
	Dwarf_Attribute at;
	Dwarf_Word idx;

	return dwarf_attr_integrate(die, DW_AT_decl_file, &at) && dwarf_formudata(&at, &idx) == 0 ?
	       dwarf_filesrc(files, idx, NULL, NULL) : NULL;
}

/*
 * The function of file that begins nearest before line, its name into buf: the one whose
 * code clang outlined a construct of (".omp_outlined."), which the debug information does
 * not link to it. Functions in namespaces are looked for too, named ns::f. Its line, or -1.
 */
static int dw_enclosing(Dwarf_Die *scope, Dwarf_Files *files, const char *file, int line, char *buf, size_t size,
			int best, const char *ns)
{
	char inner[512];
	Dwarf_Attribute at;
	Dwarf_Die die;
	bool art;

	if (dwarf_child(scope, &die) != 0)
		return best;
	do {
		const char *f, *n;
		int l;

		if (dwarf_tag(&die) == DW_TAG_namespace) {
			snprintf(inner, sizeof(inner), "%s%s::", ns, dwarf_diename(&die) ? dwarf_diename(&die) : "");
			best = dw_enclosing(&die, files, file, line, buf, size, best, inner);
			continue;
		}
		if (dwarf_tag(&die) != DW_TAG_subprogram || !dwarf_hasattr_integrate(&die, DW_AT_low_pc) ||
		    dwarf_decl_line(&die, &l) != 0 || l > line || l <= best || !(n = dwarf_diename(&die)) || *n == '.' ||
		    (dwarf_attr_integrate(&die, DW_AT_artificial, &at) && dwarf_formflag(&at, &art) == 0 && art) ||
		    !(f = dw_decl_file(&die, files)) || strcmp(f, file))
			continue;
		best = l;
		snprintf(buf, size, "%s%s", ns, n);
	} while (dwarf_siblingof(&die, &die) == 0);
	return best;
}

/* The process's modules, reported again where pc is in none (a library dlopen'ed since): pc's, or NULL. */
static Dwfl_Module *dw_module(uintptr_t pc)
{
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_linux_proc_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl_Module *m = NULL;

	for (int again = 0; !m && again < 2; again++) {
		if (!dwfl || again) {
			if (dwfl)
				dwfl_end(dwfl);
			if (!(dwfl = dwfl_begin(&cb)) || dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
			    dwfl_report_end(dwfl, NULL, NULL) != 0)
				return NULL;
		}
		m = dwfl_addrmodule(dwfl, pc);
	}
	return m;
}

/* Code address pc's place, by libdwfl; 0, or -1 when it knows none. */
static int dw_where(uintptr_t pc, struct where *w)
{
	Dwfl_Module *m = dw_module(pc);
	GElf_Sym sym;
	GElf_Off off;
	Dwarf_Addr bias;
	Dwarf_Die cu;
	Dwarf_Line *l;
	Dwarf_Files *files;
	const char *fn, *file = NULL;
	int line = 0;

	if (!m || !(fn = dwfl_module_addrinfo(m, pc, &off, &sym, NULL, NULL, NULL)))
		return -1;
	snprintf(w->fn, sizeof(w->fn), "%s", fn);
	w->start = pc - off;
	if (dw_unit(m, pc, &cu, &bias) && (l = dwarf_getsrc_die(&cu, pc - bias)) && dwarf_lineno(l, &line) == 0)
		file = dwarf_linesrc(l, NULL, NULL);
	if (!file || line <= 0)
		return 0;
	snprintf(w->loc, sizeof(w->loc), "%s:%d", strrchr(file, '/') ? strrchr(file, '/') + 1 : file, line);
	w->outlined = !strncmp(fn, ".omp_outlined", 13);
	if (w->outlined && dwarf_getsrcfiles(&cu, &files, NULL) == 0)
		dw_enclosing(&cu, files, file, line, w->fn, sizeof(w->fn), -1, "");
	return 0;
}
#endif

/* A C++ name as its source writes it, without the parameter list (file:line tells overloads apart). */
static void demangle(char *fn, size_t size)
{
	static void *cxx;	/* under lock */
	char *(*dem)(const char *, char *, size_t *, int *);
	char *d, *close;
	int st = -1, depth = 0;

	if (strncmp(fn, "_Z", 2))
		return;
	/* libstdc++'s, loaded in a C++ program but where its linker left it out (--as-needed) */
	*(void **)&dem = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!dem && (cxx || (cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL))))
		*(void **)&dem = dlsym(cxx, "__cxa_demangle");
	if (!dem || !(d = dem(fn, NULL, NULL, &st)) || st != 0)
		return;
	close = strrchr(d, ')');
	for (char *p = close; p && p > d; p--) {
		depth += (*p == ')') - (*p == '(');
		if (!depth) {
			*p = '\0';
			break;
		}
	}
	snprintf(fn, size, "%s", d);
	free(d);
}

/* Code address pc's place: libdwfl's, else dladdr's; GCC's outlined "f._omp_fn.0" as f. */
static void where_of(uintptr_t pc, struct where *w)
{
	Dl_info di;
	char *cut;

	*w = (struct where){ .fn = "" };
#ifdef HAVE_LIBDW
	if (dw_where(pc, w) < 0)
#endif
	{
		if (dladdr((void *)pc, &di) && di.dli_sname) {
			snprintf(w->fn, sizeof(w->fn), "%s", di.dli_sname);
			w->start = (uintptr_t)di.dli_saddr;
		} else if (di.dli_fname) {
			snprintf(w->fn, sizeof(w->fn), "%s+0x%lx", strrchr(di.dli_fname, '/') ?
				 strrchr(di.dli_fname, '/') + 1 : di.dli_fname, (unsigned long)(pc - (uintptr_t)di.dli_fbase));
		} else {
			snprintf(w->fn, sizeof(w->fn), "%p", (void *)pc);
		}
	}
	if (!strncmp(w->fn, ".omp_outlined", 13))
		w->outlined = true;
	if ((cut = strstr(w->fn, "._omp_fn."))) {
		*cut = '\0';
		w->outlined = true;
	}
	demangle(w->fn, sizeof(w->fn));
}

/*
 * "function (file:line) [kind]" into buf (a region name: 127 bytes at most). A function
 * name too long for it is cut, said with "..." and a hash of the whole name, so that
 * the place and the kind stay and two long names stay two.
 */
static void compose(char *buf, size_t size, const struct where *w, const char *kind)
{
	char tail[256], hash[16];
	size_t fl = strlen(w->fn), tl, room;
	uint32_t h = 2166136261u;

	snprintf(tail, sizeof(tail), "%s%s%s [%s]", *w->loc ? " (" : "", w->loc, *w->loc ? ")" : "", kind);
	tl = strlen(tail) < size - 1 ? strlen(tail) : size - 1;
	room = size - 1 - tl;	/* for the function */
	if (fl > room) {	/* cut: "...#" and 8 hex digits, 12 bytes, end it */
		for (size_t i = 0; i < fl; i++)
			h = (h ^ (unsigned char)w->fn[i]) * 16777619u;
		snprintf(hash, sizeof(hash), "...#%08x", h);
		fl = room >= 12 ? room - 12 : 0;
		memcpy(buf + fl, hash, room >= 12 ? 12 : 0);
		room = room >= 12 ? room : 0;
	} else {
		room = fl;
	}
	memcpy(buf, w->fn, fl);
	memcpy(buf + room, tail, tl);
	buf[room + tl] = '\0';
}

/* ompt_work_t's kinds, 0 for a parallel region: the bracket after a region's name */
static const char *const kinds[] = { "parallel", "loop", "sections", "single", "single", "workshare",
				     "distribute", "taskloop" };
enum { KIND_OUTLINED = 8 };	/* a parallel region by code inside its outlined function (see resolve()) */

#ifdef __x86_64__
/* n bytes at addr into buf, where mapped: 0, or -1 (no fault: the kernel reads it). */
static int peek(uintptr_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}
#endif

/*
 * Whether the instruction before ra calls the OpenMP runtime's fork entry
 * (x86-64: call rel32, to the entry or its PLT stub, or call through the
 * GOT). Otherwise a function of the program tail-called the entry, and ra
 * is in that function's caller, where several constructs may be reached
 * from one call. Elsewhere than x86-64, assumed so.
 */
static bool forks_at(const void *ra)
{
#ifdef __x86_64__
	unsigned char c[8];
	uintptr_t t = 0;
	int32_t d;
	Dl_info di;

	if (peek((uintptr_t)ra - 6, c, 6))
		return true;
	memcpy(&d, c + 2, 4);
	if (c[1] == 0xe8)
		t = (uintptr_t)ra + d;
	else if ((c[0] != 0xff || c[1] != 0x15 || peek((uintptr_t)ra + d, &t, 8)))
		return false;
	/* a PLT stub: endbr64 and bnd, then jmp *GOT(%rip) */
	if (!peek(t, c, 8) && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		t += 4;
	if (!peek(t, c, 7) && c[0] == 0xf2)
		t++;
	if (!peek(t, c, 6) && c[0] == 0xff && c[1] == 0x25) {
		memcpy(&d, c + 2, 4);
		if (peek(t + 6 + d, &t, 8))
			return false;
	}
	return dladdr((void *)t, &di) && di.dli_sname && di.dli_saddr == (void *)t &&
	       (!strncmp(di.dli_sname, "__kmpc_fork", 11) || !strncmp(di.dli_sname, "GOMP_parallel", 13) ||
		!strncmp(di.dli_sname, "GOMP_teams", 10));
#else
	(void)ra;
	return true;
#endif
}

/* The name of the construct of kind at return address ra (KIND_OUTLINED: by the function holding ra) into c's. */
static void construct_name(const void *ra, unsigned kind, char *buf, size_t size, struct construct *c)
{
	struct where w, f;

	where_of((uintptr_t)ra - 1, &w);	/* the call, not the instruction after it */
	c->tail = kind == 0 && !forks_at(ra);
	c->bare = kind == KIND_OUTLINED && !w.outlined;
	if (kind == KIND_OUTLINED && w.start) {
		where_of(w.start, &f);	/* the outlined function's first line is its construct's */
		snprintf(w.loc, sizeof(w.loc), "%s", f.loc);
	}
	compose(buf, size, &w, c->tail ? "parallel via a tail call" : kinds[kind == KIND_OUTLINED ? 0 : kind]);
}

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
	int cs;

	for (size_t i = 0; i < NAMES; i++) {
		size_t k = (h + i) % NAMES;
		const void *at = PMU_LOAD_ACQUIRE(names[k].at);

		if (at && at != key)
			continue;
		if (!at) {
			cs = pmu__lock(&lock);
			if (!(at = PMU_READ_ONCE(names[k].at))) {
				construct_name(ra, kind, buf, sizeof(buf), &names[k]);
				n = strdup(buf);
				PMU_WRITE_ONCE(names[k].name, n ? n : "(out of memory)");
				PMU_STORE_RELEASE(names[k].at, at = key);
			}
			pmu__unlock(&lock, cs);
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
	int cs;

	for (const char *p = label; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (size_t i = 0; i < NAMES; i++) {
		struct construct *c = &labels[(h + i) % NAMES];
		const void *at = PMU_LOAD_ACQUIRE(c->at);
		char *n;

		if (at && !strcmp(PMU_READ_ONCE(c->name), label))
			return c;
		if (at)
			continue;
		cs = pmu__lock(&lock);
		if (!PMU_READ_ONCE(c->at)) {
			n = strdup(label);
			PMU_WRITE_ONCE(c->name, n ? n : "(out of memory)");
			c->label = true;
			PMU_STORE_RELEASE(c->at, c);
		}
		pmu__unlock(&lock, cs);
		if (!strcmp(PMU_LOAD_ACQUIRE(c->name), label))
			return c;
	}
	return &other;
}

static const char *name_of(struct construct *c)
{
	return PMU_LOAD_ACQUIRE(c->name);
}

/* ---- the callbacks: regions on the thread OMPT calls them on ---- */

static void warn_once(const char *what, int r)
{
	static int said;

	if (r < 0 && PMU_ONCE(said))
		fprintf(stderr, "libpmu-omp: %s: %s (said once)\n", what, pmu_errmsg());
}

static void resolve(const void *ra);

static void on_parallel_begin(ompt_data_t *task, const void *frame, ompt_data_t *parallel, unsigned int req,
			      int flags, const void *ra)
{
	const char *(*label)(void) = PMU_LOAD_ACQUIRE(pmu__region_label);
	const char *l = label ? label() : NULL;

	(void)task, (void)frame, (void)req, (void)flags;
	resolve(ra);	/* nested in a region reached by a tail call */
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
	const void *at;		/* the parallel region's key (c's, but for a tail call's region renamed) */
	bool open;		/* its region is not ended yet */
	bool pending;		/* reached by a tail call: named by the first code inside that calls the runtime */
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

/*
 * A parallel region reached by a tail call (its fork's return address is
 * its caller's, shared by every construct reached from there) is named
 * once code inside calls the runtime (a loop, a barrier, a nested region):
 * by the function that code is outlined from, and the construct's line.
 */
static void resolve(const void *ra)
{
	struct construct *c;

	if (!ra || !depth || depth > DEPTH || !stack[depth - 1].pending)
		return;
	stack[depth - 1].pending = false;
	c = construct_of(ra, KIND_OUTLINED);
	if (c == &other || c->bare)	/* code of a function the region calls: the region keeps its name */
		return;
	if (wdepth == stack[depth - 1].wbase)	/* the parallel region is the innermost open */
		warn_once("a parallel region reached by a tail call", pmu__region_rename(name_of(c)));
	stack[depth - 1].c = c;
}

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
			stack[depth] = (typeof(stack[0])){ c, c ? PMU_READ_ONCE(c->at) : NULL,
							   count, count && c->tail, wdepth };
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
	if (kind == SYNC_IMPLICIT_PARALLEL || (kind == SYNC_IMPLICIT && (!ra || ra == stack[depth - 1].at))) {
		task_close();
		return;
	}
	resolve(ra);
}

static void on_work(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task, uint64_t count, const void *ra)
{
	(void)parallel, (void)task, (void)count;
	if (kind < WORK_LOOP || kind > WORK_TASKLOOP)
		return;
	if (endpoint == SCOPE_BEGIN) {
		struct construct *c;

		resolve(ra);
		c = construct_of(ra, (unsigned)kind);

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

/* Whether an OpenMP runtime is loaded: LLVM's, Intel's or GCC's. */
static bool omp_loaded(void)
{
	static const char *const libs[] = { "libomp.so.5", "libomp.so", "libiomp5.so", "libgomp.so.1" };

	for (unsigned i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		void *h = dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);

		if (h) {
			dlclose(h);
			return true;
		}
	}
	return false;
}

/*
 * Preloaded into a program whose OpenMP runtime never asked for a tool:
 * said once, at exit. A process with no OpenMP runtime (a launcher's helper,
 * as Open MPI's orted, under the same LD_PRELOAD) has nothing to hear.
 */
__attribute__((destructor)) static void no_ompt(void)
{
	void *gomp;

	if (started || !omp_loaded())
		return;
	gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
	fprintf(stderr, "libpmu-omp: no OpenMP runtime with a tool interface (OMPT) started it: nothing was "
		"counted%s\n", gomp ? " (GCC's libgomp has no OMPT: run the program on LLVM's libomp, "
		"LD_PRELOAD=libomp.so.5, whose libgomp ABI gcc's code calls)" : "");
	if (gomp)
		dlclose(gomp);
}
