/* SPDX-License-Identifier: MIT */
/* Event resolution internals: sysfs PMUs, format fields, term lists, name tables. */
#ifndef PMU_EVENT_H
#define PMU_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define PMU_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* perf_event_attr gained config3 in Linux 6.3; older headers lack it. */
#ifdef PERF_ATTR_SIZE_VER8
#define PMU_HAVE_CONFIG3 1
#else
#define PMU_HAVE_CONFIG3 0
#endif

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

static inline uint64_t pmu__attr_config3(const struct perf_event_attr *a)
{
#if PMU_HAVE_CONFIG3
	return a->config3;
#else
	(void)a;
	return 0;
#endif
}

/* The event as shown in messages: bounded and printable. */
#define PMU_SHOW_MAX 64
struct pmu__shown {
	char s[PMU_SHOW_MAX + 4];
};
const char *pmu__show(struct pmu__shown *b, const char *s, size_t len);

/* A sysfs format: which bits of which config word a term fills, low bits first. */
#define PMU_FIELD_RANGES 8
struct pmu__field {
	unsigned word;		/* 0: config, 1: config1, 2: config2, 3: config3 */
	unsigned width;		/* bits in the field */
	uint64_t mask;		/* bits of the word */
	unsigned nr;
	struct { uint8_t lo, hi; } r[PMU_FIELD_RANGES];	/* in the order written */
};

/* Parses "config1:0-7,32-35" (whitespace-trimmed). 0 or -EINVAL (no message). */
int pmu__format_parse(const char *spec, size_t len, struct pmu__field *f);
/* Spreads val over the field's ranges: -ERANGE when val is wider than the field. */
int pmu__field_put(const struct pmu__field *f, uint64_t val, uint64_t cfg[4]);
uint64_t pmu__field_get(const struct pmu__field *f, const uint64_t cfg[4]);
/* "config:0-7,32-35" into buf. */
void pmu__field_str(const struct pmu__field *f, char *buf, size_t size);

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

/* A PMU read from sysfs. */
struct pmu__format {
	char *name;
	struct pmu__field f;
	char *bad;		/* the file's text when malformed (f unusable) */
	uint8_t flags;		/* the resolver's marks: who set the term */
};

/* Formats are read one by one as terms are looked up, or all at once for listing. */
#define PMU_LAZY_FORMATS 64
struct pmu__desc {
	char name[PMU_PMU_NAME];
	uint32_t type;
	bool core;
	bool all;		/* every format loaded, sorted by name */
	unsigned nfmt, cap;
	struct pmu__format *fmt;
};

/* "root/a/b" into buf; -ENAMETOOLONG when it does not fit. */
int pmu__path(char *buf, size_t size, const char *a, const char *b);
/* Reads a small file, trailing whitespace trimmed. Length, or -errno (-EFBIG when too large). */
int pmu__read_file(const char *path, char *buf, size_t size);
/* Is name safe as a sysfs directory entry (no '/', no "..")? */
bool pmu__name_ok(const char *s, size_t len);

/*
 * Loads PMU name[0..len) from the sysfs root: type, core or not. -ENOENT (no
 * message) when absent, -EINVAL with a message when its type file is
 * malformed.
 */
int pmu__desc_load(const char *name, size_t len, struct pmu__desc *d);
void pmu__desc_free(struct pmu__desc *d);
/*
 * The format term name[0..len) (malformed ones too, with bad set), or NULL.
 * Pointers stay valid until pmu__desc_all() or pmu__desc_free().
 */
struct pmu__format *pmu__desc_format(struct pmu__desc *d, const char *name, size_t len);
/* Loads every format, sorted by name (for listings). 0 or -ENOMEM. */
int pmu__desc_all(struct pmu__desc *d);

/* Names of the PMUs under the sysfs root, sorted; free with pmu__names_free. */
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

/* Generic names: perf's tables. */
struct pmu__name_id {
	const char *name;
	uint64_t id;
	const char *desc;
};
extern const struct pmu__name_id pmu__hw_names[];
extern const size_t pmu__n_hw_names;
extern const struct pmu__name_id pmu__sw_names[];
extern const size_t pmu__n_sw_names;

/* Hardware-cache names ("L1-dcache-load-misses"): 1 with the config, 0 if not one, -EINVAL if an invalid op. */
int pmu__cache_parse(const char *s, size_t len, uint64_t *config);
/* The i-th valid cache event name (perf list's spelling) into buf; 0 past the end. */
int pmu__cache_name(unsigned i, char *buf, size_t size, uint64_t *config);

#include "event_pfm.h"

/* Tracepoints "sys:name" through tracefs: 1 with the id, 0 if not found, -errno. */
int pmu__tracepoint_id(const char *s, size_t len, uint64_t *id);

#endif
