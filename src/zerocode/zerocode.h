/* SPDX-License-Identifier: MIT */
/* Zero-code mode (zerocode.c) beyond its start before main(): what a plugin takes over. */
#ifndef PMU_ZEROCODE_H
#define PMU_ZEROCODE_H

#include "base/internal.h"


/*
 * interval.c: PMU_REPORT_INTERVAL's thread, writing the report file at path
 * every interval (nothing without the variable, said for a bad value or a
 * stream); stopped before the report at exit, which is then the last.
 */
void pmu__zero_interval_start(const char *path);
void pmu__zero_interval_stop(void);

#endif
