/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader (json.c), of perf's JSON files and of reports (pmu report
 * merge): strict RFC 8259 into a tree of values, each with its line and column.
 */
#ifndef PMU_JSON_H
#define PMU_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/internal.h"


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
/* The file at path whole (at most PMU_JSON_MAX bytes) into *buf (malloc'd) and *len: 0, or -errno with a message. */
int pmu__json_read(const char *path, char **buf, size_t *len);
void pmu__json_free(struct pmu__json *v);
/* The member key of an object; NULL when absent or not an object. */
const struct pmu__json *pmu__json_get(const struct pmu__json *obj, const char *key);
/* A number as an unsigned integer (no sign, fraction or exponent, fits 64 bits) or a finite double. */
bool pmu__json_u64(const struct pmu__json *v, uint64_t *out);
bool pmu__json_double(const struct pmu__json *v, double *out);

#endif
