/* SPDX-License-Identifier: MIT */
/*
 * sysfs.c opens every file the library reads under /sys and /proc: the PMU
 * devices, tracefs, and the perf sysctls; pmus.c makes PMU descriptions of
 * them.
 */
#ifndef PMU_SYSFS_H
#define PMU_SYSFS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/format.h"

#define PMU_MAX_PMUS 32		/* PMUs one event counts on: a hybrid machine's core PMUs, an uncore family's instances */
#define PMU_PMU_NAME 48

/* ---- PMUs of the sysfs root ---- */

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

/* ---- tracepoints ---- */

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
/* Whether tracefs is there but this user may not read its events directory. */
bool pmu__tracefs_denied(void);

/* "root/a/b" (or "root/a" when b is NULL) into buf; -ENAMETOOLONG when it does not fit. */
int pmu__path(char *buf, size_t size, const char *a, const char *b);
/*
 * Reads a small regular file, trailing whitespace trimmed. Length, or -errno:
 * -EFBIG when it does not fit, -EINVAL when it holds a NUL byte,
 * -PMU_ENOTREG when it is not a regular file (a FIFO, a device).
 */
#define PMU_ENOTREG ESPIPE
int pmu__read_file(const char *path, char *buf, size_t size);
/* What a pmu__read_file() failure means, for messages naming the file. */
const char *pmu__file_error(int r);
/* This process's command line, arguments joined by spaces, cut at size - 1 bytes. Length or -errno. */
int pmu__cmdline(char *buf, size_t size);
/* Entries of a directory that pass keep() (pmu__keep_all: every one but dot files), sorted. 0 or -errno. */
int pmu__dir_names(const char *path, bool (*keep)(const char *), char ***out, size_t *n);
/* The same, at most max entries: 1 when some were left out. */
int pmu__dir_names_max(const char *path, bool (*keep)(const char *), size_t max, char ***out, size_t *n);
bool pmu__keep_all(const char *s);
/* Whether path exists. */
bool pmu__exists(const char *path);
/* Is name safe as a sysfs directory entry (no '/', no "..")? */
bool pmu__name_ok(const char *s, size_t len);

/*
 * The format term name[0..len) (malformed ones too, with bad set), or NULL
 * with errno ENOENT (no such term), ENOMEM, or ENOSPC (more than
 * PMU_LAZY_FORMATS distinct terms looked up in one PMU).
 * Pointers stay valid until pmu__desc_all() or pmu__desc_free().
 */
#define PMU_LAZY_FORMATS 64
struct pmu__format *pmu__desc_format(struct pmu__desc *d, const char *name, size_t len);

/* Whether any core PMU exists under the root (generic hardware events can open). */
bool pmu__have_core_pmu(void);
/* A PMU's type from its type file, or -1. */
long pmu__pmu_type(const char *pmu);
/* A PMU's attribute file holding a number (x86's "rdpmc"), or -1 when absent; path gets its path. */
long pmu__pmu_number(const char *pmu, const char *file, char *path, size_t size);
/*
 * A PMU's cpumask ("0", "0,18"), which a PMU counting per CPU has (a socket's
 * or a die's: RAPL, uncore), into buf; NULL when it has none (or not a CPU list).
 */
const char *pmu__pmu_cpumask(const char *pmu, char *buf, size_t size);


/* Tracepoints "sys:name" through tracefs: 1 with the id, 0 if not found, -errno. */
#define PMU_TRACEPOINT_WORD 200	/* longest subsystem or tracepoint name taken */
int pmu__tracepoint_id(const char *s, size_t len, uint64_t *id);

#endif
