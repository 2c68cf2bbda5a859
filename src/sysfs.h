/* SPDX-License-Identifier: MIT */
/*
 * sysfs.c opens every file the library reads under /sys and /proc: the PMU
 * devices, tracefs, and the perf sysctls; pmus.c makes PMU descriptions of
 * them. What tools may use is in introspect.h; this adds what the resolver
 * and the set code need.
 */
#ifndef PMU_SYSFS_H
#define PMU_SYSFS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

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


/* Tracepoints "sys:name" through tracefs: 1 with the id, 0 if not found, -errno. */
#define PMU_TRACEPOINT_WORD 200	/* longest subsystem or tracepoint name taken */
int pmu__tracepoint_id(const char *s, size_t len, uint64_t *id);

#endif
