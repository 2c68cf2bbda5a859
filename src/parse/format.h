/* SPDX-License-Identifier: MIT */
/* The pure grammar of event strings and sysfs files (format.c): no I/O. */
#ifndef PMU_FORMAT_H
#define PMU_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/internal.h"

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

/* "config", "config1", "config2", "config3": the words of perf_event_attr a format field fills. */
extern const char *const pmu__config_words[4];

static inline __u64 *pmu__attr_word(struct perf_event_attr *a, unsigned w)
{
	switch (w) {
	case 0: return &a->config;
	case 1: return &a->config1;
	case 2: return &a->config2;
#if PMU_HAVE_CONFIG3
	case 3: return &a->config3;
#endif
	}
	return NULL;
}

/* Whitespace as sysfs files and event lists have it; trims both ends of [*s, *s+*len). */
bool pmu__is_space(char c);
void pmu__trim(const char **s, size_t *len);
/* The value of hex digit c, or -1. */
int pmu__hex_digit(int c);

/* Parses "config1:0-7,32-35" (whitespace-trimmed). 0 or -EINVAL (no message). */
int pmu__format_parse(const char *spec, size_t len, struct pmu__field *f);
/* Spreads val over the field's ranges: -ERANGE when val is wider than the field. */
int pmu__field_put(const struct pmu__field *f, uint64_t val, uint64_t cfg[4]);

/* The privilege levels an event's modifier names: "u", "k", "h" and combinations ("uk"). */
struct pmu__mods {
	bool given;		/* a modifier was written */
	bool u, k, h;
};
/* 1 when s[0..len) is a modifier (not empty, only u, k and h), with m set (NULL: not kept); else 0, m zero. */
int pmu__mods_parse(const char *s, size_t len, struct pmu__mods *m);
/*
 * An event name with a ":mods" suffix ("cycles:uk"): the length of the name
 * without it, with m set; len, m zero, when what follows the last ':' is no
 * modifier ("sched:sched_switch"). m may be NULL.
 */
size_t pmu__mods_split(const char *s, size_t len, struct pmu__mods *m);

/* One term of a list "a=1,b,c=?" (an event's terms or an alias file). */
struct pmu__term {
	const char *name;
	size_t nlen;
	const char *val;	/* NULL for a bare term */
	size_t vlen;
};

/*
 * The next term of [*p, end): 1 with t set, 0 at the end (*p NULL), -EINVAL
 * for an empty or malformed term (no message). Whitespace around terms is
 * skipped. Start with *p NULL for an empty list.
 */
int pmu__term_next(const char **p, const char *end, struct pmu__term *t);

/* A term's number: decimal or 0x hex. 0, 1 for "?", -EINVAL or -ERANGE. */
int pmu__term_value(const char *v, size_t len, uint64_t *out);

#endif
