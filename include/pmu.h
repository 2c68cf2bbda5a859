/* SPDX-License-Identifier: MIT */
/*
 * libpmu: hardware and software performance counters for the calling thread,
 * read from user space (rdpmc, mrs, csrr) where the kernel allows it and
 * through read(2) where it does not.
 *
 * Conventions:
 *  - Functions return 0 (or a count) on success and -errno on failure, never -1;
 *    a failure also sets errno (since 0.7), a success leaves it as it was.
 *  - On failure, pmu_errmsg() explains the cause in one line, in this thread.
 *  - The library writes nothing on its own but through pmu_set_print().
 *  - A set belongs to the thread that opened it: it counts that thread only
 *    and must be read, enabled, disabled and reset by that thread only (the
 *    user-space read path reads the registers of the CPU it runs on). It may
 *    be closed by any thread.
 *  - After fork() the child must not use its parent's sets, except to close
 *    them: reads return -ECHILD. The child opens sets of its own.
 */
#ifndef PMU_H
#define PMU_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMU_VERSION_MAJOR 0
#define PMU_VERSION_MINOR 8
#define PMU_VERSION_PATCH 0

/* True when these headers are version major.minor.patch or later (compile time). */
#define PMU_CHECK_VERSION(major, minor, patch)						\
	(PMU_VERSION_MAJOR > (major) ||							\
	 (PMU_VERSION_MAJOR == (major) && (PMU_VERSION_MINOR > (minor) ||			\
					   (PMU_VERSION_MINOR == (minor) && PMU_VERSION_PATCH >= (patch)))))

struct perf_event_attr;

/* An open group of events. Opaque. */
struct pmu_set;

/* One event's raw count and times in ns, unscaled. */
struct pmu_reading {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

/* Flags for struct pmu_opts. */
enum {
	PMU_INHERIT        = 1u << 0, /* count children created after open too */
	PMU_ENABLE_ON_EXEC = 1u << 1, /* start counting at the target's next exec */
	PMU_NO_GROUP       = 1u << 2, /* schedule each event on its own (like perf stat) */
	PMU_DISABLED       = 1u << 3, /* open disabled; pmu_enable() starts */
	PMU_NO_USER_READ   = 1u << 4, /* always read through read(2) */
	PMU_ON_CPU         = 1u << 5, /* count on opts.cpu only (with pid -1: every task there) */
	PMU_SOCKET_WIDE    = 1u << 6, /* an event of a per-CPU PMU (RAPL, uncore): on each CPU of its cpumask,
				       * every task there (a socket or a die), read through read(2); since 0.6 */
};

/*
 * Options for pmu_open_opts(), declared with PMU_OPTS(). size says how much
 * of the struct the caller has: any size from the first published struct's
 * (its fields up to flags) is taken; a larger one (a newer header's) only
 * when the bytes this library does not know are zero (E2BIG otherwise);
 * size 0, which 0.4 documented as its whole struct, is taken as that struct
 * (the fields up to flags). Fields are only ever appended, after unused.
 */
struct pmu_opts {
	size_t size;      /* sizeof(struct pmu_opts): PMU_OPTS sets it */
	pid_t pid;        /* 0: the calling thread; -1: every task (needs PMU_ON_CPU); else that task */
	int cpu;          /* the CPU, with PMU_ON_CPU; otherwise ignored (any CPU) */
	unsigned flags;   /* PMU_* flags above */
	unsigned unused;  /* 0.4's padding, named so no field lands in it: never read */
};

/* Declares struct pmu_opts NAME, zeroed and sized: PMU_OPTS(o, .flags = PMU_INHERIT); */
#define PMU_OPTS(NAME, ...) struct pmu_opts NAME = { .size = sizeof(struct pmu_opts), __VA_ARGS__ }

/*
 * Opens the comma-separated events for the calling thread as one group,
 * counting from the moment it returns. Events count user space only unless
 * they carry a modifier (:u, :k, :h or a combination); context-switches and
 * cpu-migrations, which happen in the kernel, count it too.
 * Returns 0 and sets *set, or -errno with *set set to NULL.
 */
int pmu_open(struct pmu_set **set, const char *events);

/* pmu_open() with options; opts may be NULL (same as pmu_open()). */
int pmu_open_opts(struct pmu_set **set, const char *events, const struct pmu_opts *opts);

/* Closes every descriptor and mapping of the set. NULL is a no-op. */
void pmu_close(struct pmu_set *set);

/* Start, stop and zero every event of the set. 0 or -errno. */
int pmu_enable(struct pmu_set *set);
int pmu_disable(struct pmu_set *set);
int pmu_reset(struct pmu_set *set);

/* Number of events, and event i as the user wrote it (NULL and a message if out of range). */
unsigned pmu_count(const struct pmu_set *set);
const char *pmu_name(const struct pmu_set *set, unsigned i);
/*
 * The unit event i's count is shown in, and into *scale what to multiply
 * the count by for it, as perf stat shows it: a sysfs event's .unit and
 * .scale ("Joules", 2.3283064365386962890625e-10 for RAPL), "msec" and 1e-6
 * for task-clock and cpu-clock (counted in ns), else "" and 1. pmu_read()
 * gives counts, never scaled so. NULL and a message if out of range.
 */
const char *pmu_unit(const struct pmu_set *set, unsigned i, double *scale);

/*
 * Reads pmu_count() values in order, scaled by enabled/running time when the
 * group was multiplexed, 0 for an event that never ran. 0 or -errno.
 */
int pmu_read(struct pmu_set *set, uint64_t *values);

/* Reads pmu_count() raw counts with their enabled and running times. */
int pmu_read_full(struct pmu_set *set, struct pmu_reading *out);

/*
 * 1 when event i is read with a user-space instruction, 0 when through
 * read(2), -errno on bad arguments. *why (if why is not NULL) receives a
 * sentence saying why, valid while the set is open.
 */
int pmu_user_read(const struct pmu_set *set, unsigned i, const char **why);

/*
 * ---- One counter, read inline ----
 *
 * For hot loops: event i of a set read by an inline function that, where the
 * kernel allows it, costs one sequence-locked read of the event's page and
 * one counter instruction (rdpmc, mrs, csrr), with no call. Anything else
 * (read(2), a multiplexed event to scale, a forked child) calls the library.
 *
 * struct pmu_counter lives inside the set: its layout is part of the ABI of
 * libpmu.so.0. Fields may only be appended (a new major version otherwise);
 * what the inline read uses is page, and it passes the handle on as is.
 */
struct pmu_counter {
	const struct perf_event_mmap_page *page;	/* the event's page when it may be read inline, else NULL */
	struct pmu_set *set;				/* the set, for the library's full path */
};

/*
 * A handle on event i of the set, valid until pmu_close(set). NULL and errno
 * EINVAL on bad arguments; errno is left alone on success.
 */
const struct pmu_counter *pmu_counter(struct pmu_set *set, unsigned i);

/*
 * static inline int pmu_counter_read(const struct pmu_counter *c, uint64_t *value);
 * Event i's value, exactly what pmu_read() would put in values[i] (scaled
 * when multiplexed). 0 or -errno (-ECHILD in a forked child, -EINVAL for
 * NULL arguments). Defined in pmu/inline.h, included below;
 * pmu_counter_read_slow() is its out-of-line half, with the same contract.
 */

/* One line explaining the last failure in the calling thread ("" if none). */
const char *pmu_errmsg(void);

/*
 * Where the library's own messages go (since 0.7): a variable it ignores
 * (PMU_COMPENSATE=2), region calls a trace could not keep, a zero-code
 * report that could not be written. Each is one line, "libpmu: " first and
 * '\n' last, handed to fn as to vfprintf(); the default writes it to
 * stderr, and NULL silences the library. Returns the function set before.
 * A call's failure is no message: it is returned, and pmu_errmsg() says it.
 */
enum pmu_print_level {
	PMU_PRINT_WARN,		/* something asked for is not done: a setting ignored, calls not traced */
	PMU_PRINT_INFO,		/* something done differently than asked: threads folded in a trace */
};
typedef int (*pmu_print_fn)(enum pmu_print_level level, const char *fmt, va_list args);
pmu_print_fn pmu_set_print(pmu_print_fn fn);

/*
 * Fills *attr with the perf_event_attr pmu_open() would use for a single-PMU
 * event (the first PMU on hybrid machines). attr->size must say how big the
 * caller's struct is (sizeof(struct perf_event_attr), as perf_event_open(2)
 * wants it); no byte past it is written. 0, as the kernel takes it, is
 * PERF_ATTR_SIZE_VER0 (64 bytes). -E2BIG when the encoding needs a field past
 * the caller's size (config2 past 64 bytes, config3 past 128). 0 or -errno.
 */
int pmu_event_attr(const char *event, struct perf_event_attr *attr);

/* The library's version, "MAJOR.MINOR.PATCH", and its parts as numbers (run time). */
const char *pmu_version(void);
unsigned pmu_version_major(void);
unsigned pmu_version_minor(void);
unsigned pmu_version_patch(void);

/*
 * ---- Per-thread counters, regions and reports ----
 *
 * A process-wide event list that every thread counts on its own, opened
 * lazily in each thread that reads (any thread, whoever created it) and
 * closed when that thread exits. A forked child starts afresh: its threads
 * open counters of their own on first use and it sees none of its parent's
 * regions. With PMU_EVENTS (and PMU_REPORT=<path|stderr|stdout>, format from
 * the extension: .csv, .json, else a table; %p in the path becomes the pid)
 * in the environment the library calls pmu_thread_init() before main(),
 * measures the main thread's whole run as region "(whole run)" and writes
 * the report at exit.
 */

/*
 * Once per process: the events every thread will count (validated now). 0 or
 * -errno. A name of the list that is no event but a built-in metric (IPC,
 * CPI, CPUs_utilized, ...: pmu list metric) or metric group (Default,
 * TopdownL1, ...) stands for its metrics' events (a group's: those of its
 * metrics this machine names), each counted once, beside the events named;
 * the reports and results then give those metrics (duration_time is the
 * region's own time).
 */
int pmu_thread_init(const char *events);

/* Reads the calling thread's counters like pmu_read(), opening them on the first call. */
int pmu_thread_read(uint64_t *values);

/*
 * Number of events of the per-thread layer (0 before pmu_thread_init()), and
 * event i (NULL and a message when out of range). pmu_thread_count() and
 * pmu_thread_name() are the same functions under their 0.1 names, kept for
 * the programs built with them and deprecated since 0.7.
 */
int pmu_thread_event_count(void);
const char *pmu_thread_event_name(unsigned i);
int pmu_thread_count(void) __attribute__((deprecated("use pmu_thread_event_count()")));
const char *pmu_thread_name(unsigned i) __attribute__((deprecated("use pmu_thread_event_name()")));

/*
 * Closes every thread's counters and forgets all figures; pmu_thread_init()
 * may be called again. No other thread may be using the layer meanwhile.
 * 0 (also when there was nothing to finish), or -errno when part of it
 * failed (the layer is finished all the same).
 */
int pmu_thread_fini(void);

/*
 * Marks the start and end of a named region in the calling thread. Regions
 * nest; the end must name the innermost open region. Each thread adds up,
 * per region name: calls, ns (CLOCK_MONOTONIC durations) and each event
 * between begin and end. 0 or -errno; a failed call changes no figure.
 */
int pmu_region_begin(const char *name);
int pmu_region_end(const char *name);

/*
 * Regions by handle, for hot code: pmu_region_register() gives name's
 * handle (>= 0, the same in every thread and for every call with an equal
 * name; the name's rules are begin's) or -errno. pmu_region_enter() and
 * pmu_region_exit() are begin and end of the handle's region, with their
 * nesting rules and errors, and mix with them freely: a region is the
 * same whether named or given by handle. A handle is valid until
 * pmu_thread_fini(); any other is -EINVAL with a message.
 */
int pmu_region_register(const char *name);
int pmu_region_enter(int handle);
int pmu_region_exit(int handle);

/*
 * Since 0.8: the hooks that a program built with -finstrument-functions
 * calls at each function's entry and exit (nobody calls them by hand): each
 * function a region of its call path while the per-thread layer is set up.
 * PMU_FUNCTIONS filters them, PMU_FUNCTIONS_BUDGET cuts what costs too much.
 */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/*
 * Compensation (since 0.6): with on 1, every region's figures (ns and each
 * event) leave out what the region calls made inside it cost, at the cost
 * of a pair by name and by handle that the thread measures once, when it
 * first switches on; a figure that would fall below 0 counts 0, and the
 * call is counted as clamped. Switches the calling thread, which must have
 * no region open (-EBUSY), and every thread that begins its first region
 * later; 0 switches off. PMU_COMPENSATE=1 sets the default. Off by default.
 * 0 or -errno.
 */
int pmu_region_compensate(int on);

/*
 * Histograms (since 0.7): with on 1, each region also keeps, per thread, a
 * log-linear histogram of each figure of its outermost calls (ns and each
 * event; every value within 0.8% of its bucket's midpoint) and each event's
 * sum per ns bucket, from which reports give p50, p90, p99, p99.9 and what
 * the slowest 1% of calls did. Switches the calling thread from its next
 * call and every thread that begins its first region later; 0 switches
 * off (what was kept stays). PMU_HISTOGRAMS=1 sets the default. Off by
 * default: a pair costs more with them (docs/histograms.md). 0 or -errno.
 */
int pmu_region_histograms(int on);

/*
 * Tasks (since 0.7): a unit of work that stops on one thread and goes on
 * on another (a request handed between threads, a coroutine).
 * pmu_task_begin() starts one in region name on the calling thread: it
 * runs there. pmu_task_suspend(), on the thread it runs on, ends its
 * interval; pmu_task_resume() starts another on the calling thread.
 * pmu_task_end(), on the thread it runs on or while it is suspended, adds
 * it as one call of region name in the calling thread's figures (and
 * histograms): ns and each event summed over its intervals alone, never
 * the time it waited, and frees it. pmu_task_read() gives those sums so
 * far (the running interval's too, on its thread; any thread may read it):
 * ns into *ns, at most n events into values; the number of events. A task
 * is used by one thread at a time, like the work it stands for. 0 or -errno
 * (begin: NULL and errno), the message naming the region and the threads.
 * pmu_task_end() frees the task whatever it returns but -EBUSY: the task
 * runs on another thread, which ends it, and is left as it was (since
 * 0.8; -EINVAL before). After any other failure its counts are not added,
 * and the message says so.
 */
struct pmu_task;	/* opaque */
struct pmu_task *pmu_task_begin(const char *name);
int pmu_task_suspend(struct pmu_task *task);
int pmu_task_resume(struct pmu_task *task);
int pmu_task_end(struct pmu_task *task);
int pmu_task_read(const struct pmu_task *task, uint64_t *ns, uint64_t *values, unsigned n);

/*
 * Writes every region's figures, per thread and in total, with derived
 * metrics (IPC, miss ratios, ns per call) when the events allow, as
 * format "table" (NULL too), "csv" or "json". Safe while threads run.
 */
int pmu_report(FILE *out, const char *format);

/*
 * pmu_report() to a file, written over: %p in path is the process ID, %h
 * the host name, %r the MPI rank (OMPI_COMM_WORLD_RANK, PMI_RANK or
 * SLURM_PROCID, else the process ID), %% a '%'. format NULL: from the
 * extension (.csv, .json, else a table). 0 or -errno.
 */
int pmu_report_path(const char *path, const char *format);

/*
 * ---- Region results as data ----
 *
 * A snapshot of every region's figures, per thread and in total, taken
 * like pmu_report()'s (which formats one): each thread's figures come from
 * one consistent copy, and the totals are computed from those same copies.
 * Safe while threads run; the snapshot owns its strings and outlives
 * pmu_thread_fini().
 *
 * "Per call" figures (min, max, standard deviation) are of the outermost
 * calls: a region entered again inside itself (recursion) adds its time and
 * events once, over the outermost call, so calls counts every call while
 * spans counts the outermost ones, the samples of min, max and stddev. A
 * nested region of another name is included in the figures of the regions
 * around it.
 */
struct pmu_results;	/* opaque */

/* A snapshot now: NULL and errno set (the message in pmu_errmsg()) on failure. */
struct pmu_results *pmu_results_take(void);

/* Frees the snapshot and everything it handed out. NULL is a no-op. */
void pmu_results_free(struct pmu_results *r);

/*
 * The number of events, regions (every name begun, in first-use order, the
 * index being the region's number) and threads (those that used regions,
 * oldest first) of the snapshot; *names, when names is not NULL, receives
 * the events' or regions' names, valid until pmu_results_free(). 0 for NULL r.
 */
unsigned pmu_results_events(const struct pmu_results *r, const char *const **names);
unsigned pmu_results_regions(const struct pmu_results *r, const char *const **names);
unsigned pmu_results_threads(const struct pmu_results *r);

/*
 * A thread of the snapshot. Set size to sizeof(struct pmu_thread_result)
 * first: any size from 0.4's struct up is taken, and the bytes past what
 * this library knows are zeroed (a newer caller's fields: "not given").
 */
struct pmu_thread_result {
	size_t size;		/* set by the caller, for compatibility */
	pid_t tid;
	const char *name;	/* its name when it began its first region (comm) */
	int exited;		/* 1 when the thread has exited since */
	int compensated;	/* since 0.6: 1 when its regions are compensated (pmu_region_compensate()) */
};

/* Thread i of the snapshot into *out. 0 or -errno (-EINVAL: NULL, i out of range, size too small). */
int pmu_results_thread(const struct pmu_results *r, unsigned i, struct pmu_thread_result *out);

/*
 * One region's figures in one thread or in total. Set size to
 * sizeof(struct pmu_region_result) first; fields may be appended in later
 * versions. Pointers are valid until pmu_results_free(); the arrays have
 * one element per event of pmu_results_events().
 */
struct pmu_region_result {
	size_t size;		/* set by the caller, for compatibility */
	const char *name;	/* the region's name */
	uint64_t calls;		/* completed calls, recursive ones included */
	uint64_t spans;		/* completed outermost calls: the samples of min, max, stddev */
	uint64_t ns;		/* ns over the outermost calls (CLOCK_MONOTONIC durations) */
	uint64_t ns_min, ns_max;	/* of one outermost call; 0 when spans is 0 */
	double ns_stddev;	/* population standard deviation over the outermost calls */
	unsigned nevents;
	const uint64_t *sum;	/* each event's sum (scaled when multiplexed) */
	const uint64_t *min;	/* per outermost call */
	const uint64_t *max;
	const double *stddev;
	const double *running_pct;	/* running / enabled time in percent; 100 when never multiplexed */
	uint64_t clamped;	/* since 0.6: compensated outermost calls with a figure below 0, counted 0 */
};

/*
 * Region number region of the snapshot, in thread number thread (from 0)
 * or in total over every thread (-1), into *out. 0, or -errno: -ENOENT when
 * that thread (or no thread) completed a call of the region; -EINVAL for
 * NULL arguments, a region or thread out of range, or a size too small.
 */
int pmu_results_get(const struct pmu_results *r, unsigned region, int thread, struct pmu_region_result *out);

/*
 * Since 0.8: the snapshot's call paths. A path is a region begun inside the
 * path of the regions open around it (-1: none, at the top); a region begun
 * directly inside itself folds into its path. Per path, in a thread or in
 * total: its calls, its total (between begin and end, as the region's own
 * figures) and its self (the total less the totals of the paths inside it,
 * not below 0), for ns and each event.
 */
struct pmu_path_result {
	size_t size;		/* set by the caller, for compatibility */
	int up;			/* the path around it (a path number), -1 at the top; before it in number */
	unsigned region;	/* its region: a number of pmu_results_regions() */
	unsigned depth;		/* 0 at the top */
	uint64_t calls;		/* completed calls */
	uint64_t ns, self_ns;
	unsigned nevents;
	const uint64_t *sum;	/* each event's total */
	const uint64_t *self;	/* each event's self */
};

/* The number of call paths in the snapshot (0 for NULL r). */
unsigned pmu_results_paths(const struct pmu_results *r);

/*
 * Path number path in thread number thread, or in total (-1), into *out:
 * valid until pmu_results_free(). 0, or -errno: -EINVAL for NULL
 * arguments, a path or thread out of range, or a size too small. A path
 * with no completed call there gives calls 0 (its paths inside may have some).
 */
int pmu_results_path(const struct pmu_results *r, unsigned path, int thread, struct pmu_path_result *out);

/*
 * The metrics the snapshot gives: those pmu_thread_init() named, then every
 * built-in one whose events it counts (IPC with cycles and instructions).
 * Their number, and in *names (when names is not NULL) their names as the
 * reports write them (0.4's keys for those its reports had: "ipc",
 * "cache_miss_ratio", "branch_miss_ratio", "l1d_miss_ratio"), valid until
 * pmu_results_free(). 0 for NULL r.
 */
unsigned pmu_results_metrics(const struct pmu_results *r, const char *const **names);

/*
 * Metric metric (a name pmu_results_metrics() gives, or the built-in
 * metric's own, in any case) of region number region in thread number
 * thread, or in total over every thread (-1), into *value: computed from the
 * summed counts (and the ns, for duration_time), never from other ratios;
 * the expression's value before its scale (0.025 for 2.5 % of branches
 * missed). 0, or -errno: -ENOENT when the snapshot has no such metric or no
 * call of the region there; -EDOM when undefined (a zero denominator:
 * *value is NaN); -EINVAL for NULL arguments, a region or thread out of range.
 */
int pmu_results_metric(const struct pmu_results *r, unsigned region, int thread, const char *metric,
		       double *value);

/*
 * The q-quantile (0 < q <= 1; 1 is the largest) of figure figure (0: ns,
 * 1 + i: event i) of region number region's outermost calls in thread
 * number thread, or in total over every thread (-1), into *value: the
 * midpoint of its histogram bucket, within 0.8% of the call's own figure
 * (since 0.7). 0, or -errno: -ENOENT when the region kept no histogram there
 * (pmu_region_histograms()) or has no call; -EINVAL for NULL arguments, q,
 * figure, region or thread out of range.
 */
int pmu_results_quantile(const struct pmu_results *r, unsigned region, int thread, unsigned figure, double q,
			 double *value);

/*
 * The tail of region number region in thread number thread, or in total
 * (-1): its slowest calls, those of the histogram buckets from the one where
 * the slowest 1% begin (at least 1% of the calls, whole buckets). Their
 * number into *calls; event number event's mean per call over them into
 * *tail and over the other calls into *rest (NaN when there is none) (since
 * 0.7). Errors as pmu_results_quantile()'s.
 */
int pmu_results_tail(const struct pmu_results *r, unsigned region, int thread, unsigned event, uint64_t *calls,
		     double *tail, double *rest);

/* ---- end of per-thread counters, regions and reports ---- */

#ifdef __cplusplus
}
#endif

#include "pmu/inline.h"

#endif /* PMU_H */
