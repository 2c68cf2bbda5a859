/* SPDX-License-Identifier: MIT */
/* What every library file needs: export and branch hints, and the error message (error.c). */
#ifndef PMU_INTERNAL_H
#define PMU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "pmu.h"

#define PMU_API __attribute__((visibility("default")))
/* Exported for the pmu tool alone, in a node named by the exact version (private.h). */
#define PMU_TOOL __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PMU_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* error.c: sets this thread's message and returns err (a -errno). */
int pmu__err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends to this thread's message (e.g. a hint after a callee's message). */
void pmu__err_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pmu__err_clear(void);

#endif
