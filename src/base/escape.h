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

#include "base/internal.h"

/*
 * Text (tables, terminals, messages): valid UTF-8 as it is, but control
 * characters (C0, DEL, C1 as U+0080..U+009F or as raw bytes) and bytes that
 * are not UTF-8 as \xHH (\n, \t, \r by name), \ as \\. s[0..len) into buf,
 * NUL-terminated, whole escapes only. Returns the bytes of s written.
 */
size_t pmu__text_esc(char *buf, size_t size, const char *s, size_t len);
/* The same, unbounded, to f. */
void pmu__text_str(FILE *f, const char *s);
/* A frame of a call path written as names joined by ';': name at b, a ';' in it as \x3b (4 * strlen + 1 bytes). Its end. */
char *pmu__path_frame(char *b, const char *name);
/* A table cell: s escaped into buf of PMU_ESC_SIZE bytes (a region name always fits). */
#define PMU_ESC_SIZE 512
const char *pmu__report_esc(char *buf, const char *s);

/* s as a quoted label value of the Prometheus text format (escape.c). */
void pmu__prom_str(FILE *f, const char *s);

/* s as a CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled, bytes as they are. */
void pmu__report_csv_field(FILE *f, const char *s);

/* A double as the shortest text that reads back as the same double (JSON, CSV). */
void pmu__put_exact(FILE *f, double x);

/* s as a JSON string, quoted and escaped. */
void pmu__json_str(FILE *f, const char *s);

/* s in HTML text or a quoted attribute: escaped as text, then & < > " ' as references. */
void pmu__html_str(FILE *f, const char *s);

/*
 * Input as shown in messages (escape.c): its first PMU_SHOW_MAX bytes as
 * text (pmu__text_esc: control characters and bytes that are not UTF-8
 * escaped), "..." when longer.
 */
#define PMU_SHOW_MAX 64
struct pmu__shown {
	char s[PMU_SHOW_MAX * 4 + 16];	/* a character cut at the bound is shown whole */
};
const char *pmu__show(struct pmu__shown *b, const char *s, size_t len);

#endif
