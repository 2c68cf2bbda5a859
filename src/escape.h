/* SPDX-License-Identifier: MIT */
/*
 * The output escapers (escape.c), one per format, for names that others
 * choose (regions, threads, events, sysfs files, reports read back): the
 * library's reports and messages, and the tool, call these and no others.
 */
#ifndef PMU_ESCAPE_H
#define PMU_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

#include "internal.h"

/*
 * Text (tables, terminals, messages): s[0..len) into buf, NUL-terminated,
 * whole escapes only. Returns the bytes of s written.
 */
PMU_TOOL size_t pmu__text_esc(char *buf, size_t size, const char *s, size_t len);
/* The same, unbounded, to f. */
PMU_TOOL void pmu__text_str(FILE *f, const char *s);
/* A table cell: s escaped into buf of PMU_ESC_SIZE bytes (a region name always fits). */
#define PMU_ESC_SIZE 512
PMU_TOOL const char *pmu__report_esc(char *buf, const char *s);

/* s as a CSV field. */
PMU_TOOL void pmu__report_csv_field(FILE *f, const char *s);

/* s as a JSON string, quoted and escaped. */
PMU_TOOL void pmu__json_str(FILE *f, const char *s);

#endif
