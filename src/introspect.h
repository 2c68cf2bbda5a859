/* SPDX-License-Identifier: MIT */
/*
 * The library's introspection interface: what the pmu tool and the tests
 * may use beyond pmu.h. Resolved events, the PMUs of the sysfs root with
 * their format fields and aliases, perf's name tables, and the system
 * policy that decides the read path. Not installed; linked statically.
 */
#ifndef PMU_INTROSPECT_H
#define PMU_INTROSPECT_H

#include <stdbool.h>
#include <stdio.h>

#include "internal.h"

/* ---- events (event.c) ---- */

#define PMU_MAX_PMUS 8		/* core PMUs of one hybrid machine */
#define PMU_PMU_NAME 48

/* One event name resolved into one attr per PMU it counts on. */
struct pmu__attr {
	struct perf_event_attr attr;
	char pmu[PMU_PMU_NAME];	/* "software", "cpu", "cpu_core", "armv8_pmuv3_0" */
	uint64_t auto_long;	/* config1 bits the library set that open may drop on EOPNOTSUPP */
};

struct pmu__event {
	unsigned n;		/* >= 1; more than one only for a generic event on hybrid PMUs */
	struct pmu__attr a[PMU_MAX_PMUS];
};

/*
 * Resolves the event s[0..len) (one event, no top-level comma) into ev. Sets
 * attr.size, type, config, config1..3 and exclude_user/kernel/hv; leaves every
 * other field zero. Default when there is no modifier: user space only for
 * CPU events (but context switches and migrations, which happen in the
 * kernel), nothing excluded on other PMUs.
 * Returns 0 or -errno with pmu__err() naming the event.
 */
int pmu__event_parse(const char *s, size_t len, struct pmu__event *ev);

/*
 * Splits a comma-separated list: commas inside "pmu/.../" belong to the
 * event. On the first call *p is the list. Returns 1 with [*tok, *tok+*len)
 * the next event, 0 at the end, or -EINVAL (message set) for an empty event.
 */
int pmu__event_next(const char **p, const char **tok, size_t *len);

/* perf_event_attr gained config3 in Linux 6.3; older headers lack it. */
#ifdef PERF_ATTR_SIZE_VER8
#define PMU_HAVE_CONFIG3 1
#else
#define PMU_HAVE_CONFIG3 0
#endif

static inline uint64_t pmu__attr_config3(const struct perf_event_attr *a)
{
#if PMU_HAVE_CONFIG3
	return a->config3;
#else
	(void)a;
	return 0;
#endif
}

/* ---- perf's generic names (event_names.c) ---- */

struct pmu__name_id {
	const char *name;
	uint64_t id;
	const char *desc;
};
extern const struct pmu__name_id pmu__hw_names[];
extern const size_t pmu__n_hw_names;
extern const struct pmu__name_id pmu__sw_names[];
extern const size_t pmu__n_sw_names;

/* The i-th valid cache event name (perf list's spelling) into buf; 0 past the end. */
int pmu__cache_name(unsigned i, char *buf, size_t size, uint64_t *config);

/* ---- format fields (format.c) ---- */

/* A sysfs format: which bits of which config word a term fills, low bits first. */
#define PMU_FIELD_RANGES 8
struct pmu__field {
	unsigned word;		/* 0: config, 1: config1, 2: config2, 3: config3 */
	unsigned width;		/* bits in the field */
	uint64_t mask;		/* bits of the word */
	unsigned nr;
	struct { uint8_t lo, hi; } r[PMU_FIELD_RANGES];	/* in the order written */
};

/* "config:0-7,32-35" into buf. */
void pmu__field_str(const struct pmu__field *f, char *buf, size_t size);

/* ---- PMUs of the sysfs root (sysfs.c) ---- */

/* The sysfs root for PMU devices: as set, else $PMU_SYSFS_DEVICES, else /sys/bus/event_source/devices. */
const char *pmu__sysfs_root(void);
/* Points the library at another root (a copy of another machine's sysfs); NULL restores the default. */
void pmu__set_sysfs_root(const char *dir);
/* 1 when the root is this machine's own (no copy set): libpfm4 describes this CPU only. */
bool pmu__sysfs_is_own(void);

/* A PMU's format term. */
struct pmu__format {
	char *name;
	struct pmu__field f;
	char *bad;		/* the file's text when malformed (f unusable) */
	uint8_t flags;		/* the resolver's marks: who set the term */
};

/* A PMU read from sysfs; formats are read one by one as terms are looked up, or all at once for listing. */
struct pmu__desc {
	char name[PMU_PMU_NAME];
	uint32_t type;
	bool core;		/* counts the CPU's own work: generic events open here */
	bool all;		/* every format loaded, sorted by name */
	unsigned nfmt, cap;
	struct pmu__format *fmt;
};

/*
 * Loads PMU name[0..len) from the sysfs root: type, core or not. -ENOENT (no
 * message) when absent, -EINVAL with a message when its type file is
 * malformed.
 */
int pmu__desc_load(const char *name, size_t len, struct pmu__desc *d);
void pmu__desc_free(struct pmu__desc *d);
/* Loads every format, sorted by name (for listings). 0 or -ENOMEM. */
int pmu__desc_all(struct pmu__desc *d);

/* ---- tasks and CPUs, for pmu stat's targets (sysfs.c) ---- */

/* The thread IDs of process pid (/proc/PID/task) as names, sorted; free with pmu__names_free. 0 or -errno. */
int pmu__task_threads(long pid, char ***tids, size_t *n);
/* Thread tid's name (comm): 0, or -errno (-ENOENT: no such thread). */
int pmu__task_comm(long tid, char *buf, size_t size);
/* Whether thread tid is there and has not exited (a zombie has). */
bool pmu__task_alive(long tid);
/* The kernel's list of online CPUs ("0-3,5"): 0, or -errno. */
int pmu__online_cpus(char *buf, size_t size);
/* A sysctl holding a number ("kernel.perf_event_paranoid"): true with *v set, false when absent. */
bool pmu__sysctl(const char *name, long *v);

/* Names of the PMUs under the sysfs root (directories with a type file), sorted; free with pmu__names_free. */
int pmu__pmu_names(char ***names, size_t *n);
void pmu__names_free(char **names, size_t n);

/*
 * The core PMUs (cpu, cpu_core, cpu_atom, armv8_*, or with a cpus file),
 * sorted by type, at most PMU_MAX_PMUS. Returns how many, or -errno.
 */
int pmu__core_pmus(struct pmu__desc *d);

/*
 * Event aliases of a PMU: events/<alias>, names matched without case.
 * pmu__alias_read finds alias name[0..len) and copies its terms into buf and its
 * exact file name into canon. 1 when found, 0 when not, -errno (message set).
 */
int pmu__alias_read(const char *pmu, const char *name, size_t len, char *buf, size_t size,
		    char *canon, size_t csize);
/* Sorted alias names of a PMU (no .scale/.unit/... files); free with pmu__names_free. */
int pmu__alias_names(const char *pmu, char ***names, size_t *n);
/* events/<alias>.<what> ("scale", "unit") into buf: length, or -errno. */
int pmu__alias_extra(const char *pmu, const char *alias, const char *what, char *buf, size_t size);

/* ---- tracepoints (sysfs.c) ---- */

struct pmu__tracepoint {
	char *name;		/* "sched:sched_switch" */
	uint64_t id;		/* perf_event_attr.config of type PERF_TYPE_TRACEPOINT */
};
#define PMU_MAX_TRACEPOINTS 65536

/*
 * The tracepoints of tracefs (events/SUBSYS/NAME with an id file, names as
 * the resolver takes them), sorted by name, at most PMU_MAX_TRACEPOINTS.
 * 0, 1 when some were left out (too many), or -errno: -ENOENT or -EACCES
 * when tracefs is missing or unreadable (pmu__tracefs_problem() says what to
 * do), -EXDEV when the sysfs root is a copy and $PMU_TRACEFS is not set,
 * -ENOMEM. Free with pmu__tracepoints_free().
 */
int pmu__tracepoints(struct pmu__tracepoint **tp, size_t *n);
void pmu__tracepoints_free(struct pmu__tracepoint *tp, size_t n);
/*
 * Why tracepoints cannot be found: "" when tracefs is there and readable,
 * else a hint naming what to do (mount it, or run with the rights to read it),
 * built in buf when it names a path. (Not thread-local: a library loaded late,
 * by Python's ctypes say, has little static TLS room.)
 */
const char *pmu__tracefs_problem(char *buf, size_t size);

/* ---- libpfm4 (event_pfm.c): pmu__pfm_list() ---- */
#include "event_pfm.h"

/* ---- system policy (why.c) ---- */

/*
 * The settings that decide what may be counted and how it is read on this
 * machine (perf_event_paranoid; x86's rdpmc files; arm64's and riscv's
 * perf_user_access), each with its value and what that value means here.
 * Calls cb once per setting present. Returns how many.
 */
int pmu__policy(void (*cb)(void *arg, const char *name, const char *value, const char *meaning), void *arg);

/* ---- derived metrics (metrics.c): the table pmu stat shares with the region report ---- */
#include "metrics.h"

/* ---- output (report.c) ---- */

/* s as a JSON string, quoted and escaped (the report and the tool). */
void pmu__json_str(FILE *f, const char *s);
/* The region report's table cell and csv field of s: control characters escaped (buf: PMU_ESC_SIZE bytes). */
#define PMU_ESC_SIZE 512
const char *pmu__report_esc(char *buf, const char *s);
void pmu__report_csv_field(FILE *f, const char *s);

/* ---- reading JSON and reports (json.c) ---- */

#define PMU_JSON_DEPTH 64		/* nesting levels read */
#define PMU_JSON_MAX (64 << 20)		/* bytes read */

enum pmu__json_type { PMU_JSON_NULL, PMU_JSON_BOOL, PMU_JSON_NUMBER, PMU_JSON_STRING, PMU_JSON_ARRAY, PMU_JSON_OBJECT };

/* A value read, with where it starts; a member of an object has its key. */
struct pmu__json {
	enum pmu__json_type type;
	unsigned line, col;
	const char *key;	/* in an object: the member's name (decoded), else NULL */
	size_t klen;		/* its bytes (a \u0000 makes strlen shorter) */
	unsigned kline;		/* the line of the key */
	const char *s;		/* string: decoded, NUL-terminated; number: its text */
	size_t len;		/* bytes of s */
	bool b;			/* bool */
	size_t n;		/* array, object: members */
	struct pmu__json *v;
};

/*
 * Reads one JSON value (RFC 8259, strict: no trailing commas, comments,
 * leading zeros, bare control characters, lone surrogates, duplicate keys,
 * nor anything after the value) from buf or from the file at path.
 * 0 with *out to free with pmu__json_free, or -errno with a message
 * "NAME:LINE:COL: what is wrong" (name: the path for messages).
 */
int pmu__json_parse(const char *name, const char *buf, size_t len, struct pmu__json **out);
int pmu__json_load(const char *path, struct pmu__json **out);
void pmu__json_free(struct pmu__json *v);
/* The member key of an object; NULL when absent or not an object. */
const struct pmu__json *pmu__json_get(const struct pmu__json *obj, const char *key);
/* A number as an unsigned integer (no sign, fraction or exponent, fits 64 bits) or a finite double. */
bool pmu__json_u64(const struct pmu__json *v, uint64_t *out);
bool pmu__json_double(const struct pmu__json *v, double *out);

/* A region of a json report read back: its totals over threads. */
struct pmu__rep_region {
	const char *name;
	unsigned line;
	uint64_t calls, ns;
	uint64_t *counts;	/* per event of the report */
	bool range;		/* per call ns_min, ns_max and min, max of each event, all given */
	double ns_min, ns_max;
	double *min, *max;	/* per event, when range */
};

/* A json report (pmu_report's) read back and checked; strings point into doc. */
struct pmu__rep {
	const char *path;
	struct pmu__json *doc;
	const char *library, *hostname, *command, *start;
	unsigned major, minor, patch;
	long pid;
	uint64_t start_ns;
	unsigned nev, nreg;
	const char **ev;
	struct pmu__rep_region *reg;
};

/*
 * Reads the report at path and checks it against what pmu_report writes:
 * every known field present with its type, counts that are non-negative
 * integers with one per event, unique names, threads summing to their
 * region, this library's major version. Unknown fields are left alone, so
 * that later versions' additions read. 0, or -errno with a message
 * "PATH:LINE: region \"x\": \"calls\" is not a non-negative integer".
 */
int pmu__rep_read(const char *path, struct pmu__rep *r);
/* The same from a buffer (name for messages). */
int pmu__rep_parse(const char *name, const char *buf, size_t len, struct pmu__rep *r);
void pmu__rep_free(struct pmu__rep *r);

/* ---- sets (set.c), for tests ---- */

/* Counter i of a set (one per event but on hybrid machines). 0 or -EINVAL. */
unsigned pmu__counters(const struct pmu_set *set);
int pmu__counter(const struct pmu_set *set, unsigned i, int *fd,
		 const struct perf_event_mmap_page **page, unsigned *event);

#endif
