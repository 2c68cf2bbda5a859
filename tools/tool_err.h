/* SPDX-License-Identifier: MIT */
/*
 * The tool's explanation of its last failure, apart from the library's
 * (pmu_errmsg()): the library's buffer is written by the library only.
 */
#ifndef PMU_TOOL_ERR_H
#define PMU_TOOL_ERR_H

/* Sets the message (printf's fmt); returns err. */
int tool_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A library call's result r: when negative, the library's message becomes the tool's. Returns r. */
int tool_err_lib(int r);

const char *tool_errmsg(void);
#endif
