/* SPDX-License-Identifier: MIT */
/* The tool's own explanation of its last failure (err.c): the library's pmu_errmsg() is the library's. */
#ifndef PMU_TOOL_ERR_H
#define PMU_TOOL_ERR_H

/* Sets the message and returns err (a -errno). */
int tool_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tool_errmsg(void);

#endif
