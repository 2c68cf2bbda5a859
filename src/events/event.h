/* SPDX-License-Identifier: MIT */
/*
 * Shared by the resolver's files, each calling only those below it:
 * event.c (modifiers, dispatch) -> terms.c (pmu/terms/ of sysfs PMUs),
 * suggest.c (did you mean) -> event_names.c (perf's tables).
 */
#ifndef PMU_EVENT_H
#define PMU_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "events/sysfs.h"

/* ---- resolved events (event.c) ---- */


/* One event name resolved into one attr per PMU it counts on. */
struct pmu__attr {
	struct perf_event_attr attr;
	char pmu[PMU_PMU_NAME];	/* "software", "cpu", "cpu_core", "armv8_pmuv3_0" */
	uint64_t auto_long;	/* config1 bits the library set that open may drop on EOPNOTSUPP */
	uint64_t auto_user;	/* config1 bits the library set for user-space reads (arm64's rdpmc term) */
	bool alt;		/* takes turns with the event's other PMUs: a hybrid machine's core PMUs */
	double scale;		/* a sysfs alias's .scale: what perf multiplies the count by to show it; 0: none */
	char unit[16];		/* its .unit ("Joules", "MiB"), "" for none */
};

/*
 * The scale and unit perf stat shows an event's count in, as perf's evsel
 * has them: a sysfs alias's .scale and .unit, msec for the software clocks
 * (their counts are ns), else 1 and "".
 */
const char *pmu__attr_unit(const struct pmu__attr *pa, double *scale);

struct pmu__event {
	unsigned n;		/* >= 1; more than one only for a generic event on hybrid PMUs */
	struct pmu__attr a[PMU_MAX_PMUS];
};

/*
 * Resolves the event s[0..len) (one event, no top-level comma) into ev. Sets
 * attr.size, type, config, config1..3 and exclude_user/kernel/hv; leaves every
 * other field zero. Default when there is no modifier: user space only for
 * CPU events (but context switches and migrations, which happen in the
 * kernel), nothing excluded on other PMUs.
 * Returns 0 or -errno with pmu__err() naming the event.
 */
int pmu__event_parse(const char *s, size_t len, struct pmu__event *ev);


/* ---- perf's generic names (event_names.c) ---- */

struct pmu__name_id {
	const char *name;
	uint64_t id;
	const char *desc;
};
extern const struct pmu__name_id pmu__hw_names[];
extern const size_t pmu__n_hw_names;
extern const struct pmu__name_id pmu__sw_names[];
extern const size_t pmu__n_sw_names;

/* The i-th valid cache event name (perf list's spelling) into buf; 0 past the end. */
int pmu__cache_name(unsigned i, char *buf, size_t size, uint64_t *config);

/* The event being resolved, for messages. */
struct pmu__ctx {
	const char *s;
	size_t len;
	struct pmu__shown b;
	const char *ev;		/* s as shown */
};

static inline void pmu__copy_name(char dst[PMU_PMU_NAME], const char *src)
{
	size_t n = strnlen(src, PMU_PMU_NAME - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static inline void pmu__init_attr(struct pmu__attr *pa, uint32_t type, uint64_t config, const char *pmu)
{
	memset(pa, 0, sizeof(*pa));
	pa->attr.size = sizeof(pa->attr);
	pa->attr.type = type;
	pa->attr.config = config;
	pmu__copy_name(pa->pmu, pmu);
}

/* Puts the event in front of a callee's message that names only a file. */
static inline int pmu__prefix_err(struct pmu__ctx *c, int r)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "%s", pmu_errmsg());
	return pmu__err(r, "%s: %s", c->ev, msg);
}

/* terms.c */
/*
 * Resolves the terms [t, t+tlen) of PMU d into pa. ncore: the number of core
 * PMUs (a generic name inside a core PMU gets its extended type when > 1).
 * 0 or -errno with a message.
 */
int pmu__pmu_terms(struct pmu__ctx *c, struct pmu__desc *d, int ncore, const char *t, size_t tlen,
		   struct pmu__attr *pa);
/* Sets a PMU's rdpmc and long format terms (arm64 user access) unless the event set them. 0 or -ENOMEM. */
int pmu__auto_terms(struct pmu__desc *d, struct pmu__attr *pa, unsigned words_set);

/* suggest.c: the messages for an unknown event or PMU, with "did you mean". -ENOENT. */
int pmu__unknown_event(struct pmu__ctx *c, const char *s, size_t len);
int pmu__unknown_pmu(struct pmu__ctx *c, const char *s, size_t len);
/* A term of PMU d that is neither a format nor an event; terms: its terms, listed. -EINVAL. */
int pmu__unknown_term(struct pmu__ctx *c, struct pmu__desc *d, const char *s, size_t len, const char *terms);

/* event_names.c */
/* Hardware-cache names ("L1-dcache-load-misses"): 1 with the config, 0 if not one, -EINVAL if an invalid op. */
int pmu__cache_parse(const char *s, size_t len, uint64_t *config);
/* The entry of table t named s[0..len), or NULL. */
const struct pmu__name_id *pmu__find_name(const struct pmu__name_id *t, size_t n, const char *s, size_t len);
/* Generic hardware or cache name: 1 with type and config, 0 if not one, -EINVAL (message set). */
int pmu__generic_name(struct pmu__ctx *c, const char *s, size_t len, uint32_t *type, uint64_t *config);

#endif
