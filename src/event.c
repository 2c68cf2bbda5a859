/* SPDX-License-Identifier: MIT */
/* Event names into perf_event_attr: generic, software and raw events, modifiers. */
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The event as shown in messages: bounded, printable. */
#define SHOW_MAX 64
struct shown {
	char s[SHOW_MAX + 4];
};

static const char *show(struct shown *b, const char *s, size_t len)
{
	size_t i, n = len > SHOW_MAX ? SHOW_MAX : len;

	for (i = 0; i < n; i++)
		b->s[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (len > n)
		memcpy(b->s + n, "...", 3), n += 3;
	b->s[n] = '\0';
	return b->s;
}

struct name_id {
	const char *name;
	uint64_t id;
};

static const struct name_id hw_names[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct name_id sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct name_id *find(const struct name_id *t, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].name) == len && !memcmp(t[i].name, s, len))
			return &t[i];
	return NULL;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "rNNNN": 1 to 16 hex digits, optional 0x. 1 if s is one, 0 if not, -EINVAL if malformed. */
static int parse_raw(const char *s, size_t len, uint64_t *v)
{
	size_t i = 1;

	if (len < 1 || s[0] != 'r')
		return 0;
	if (len >= 3 && s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))
		i = 3;
	if (i == len)
		return len == 1 ? -EINVAL : 0;
	for (size_t j = i; j < len; j++)
		if (hexval(s[j]) < 0)
			return 0;
	if (len - i > 16)
		return -ERANGE;
	*v = 0;
	for (; i < len; i++)
		*v = *v << 4 | (uint64_t)hexval(s[i]);
	return 1;
}

/* Modifiers u, k, h: count only the named levels. */
static int apply_mods(const char *ev, size_t evlen, const char *m, size_t len,
		      struct perf_event_attr *a)
{
	bool u = false, k = false, h = false;
	struct shown b;

	if (len == 0)
		return pmu__err(-EINVAL, "%s: empty modifier after ':' (use u, k, h or a combination)",
				show(&b, ev, evlen));
	for (size_t i = 0; i < len; i++) {
		switch (m[i]) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		default: {
			struct shown c;

			return pmu__err(-EINVAL, "%s: bad modifier '%s' (use u, k, h or a combination)",
					show(&b, ev, evlen), show(&c, m, len));
		}
		}
	}
	a->exclude_user = !u;
	a->exclude_kernel = !k;
	a->exclude_hv = !h;
	return 0;
}

static void init_attr(struct pmu__attr *pa, uint32_t type, uint64_t config, const char *pmu)
{
	memset(pa, 0, sizeof(*pa));
	pa->attr.size = sizeof(pa->attr);
	pa->attr.type = type;
	pa->attr.config = config;
	pa->attr.exclude_kernel = 1;
	pa->attr.exclude_hv = 1;
	snprintf(pa->pmu, sizeof(pa->pmu), "%s", pmu);
}

int pmu__event_parse(const char *s, size_t len, struct pmu__event *ev)
{
	const char *name = s, *mods = NULL;
	size_t nlen = len, mlen = 0;
	const struct name_id *id;
	struct shown b;
	uint64_t raw;
	int r;

	memset(ev, 0, sizeof(*ev));
	if (!s || len == 0)
		return pmu__err(-EINVAL, "empty event name");
	for (size_t i = 0; i < len; i++)
		if (s[i] == ':') {
			nlen = i;
			mods = s + i + 1;
			mlen = len - i - 1;
			break;
		}
	if (nlen == 0)
		return pmu__err(-EINVAL, "%s: missing event name before ':'", show(&b, s, len));

	ev->n = 1;
	if ((id = find(hw_names, ARRAY_SIZE(hw_names), name, nlen)))
		init_attr(&ev->a[0], PERF_TYPE_HARDWARE, id->id, "cpu");
	else if ((id = find(sw_names, ARRAY_SIZE(sw_names), name, nlen)))
		init_attr(&ev->a[0], PERF_TYPE_SOFTWARE, id->id, "software");
	else if ((r = parse_raw(name, nlen, &raw)) > 0)
		init_attr(&ev->a[0], PERF_TYPE_RAW, raw, "cpu");
	else {
		ev->n = 0;
		if (r == -EINVAL)
			return pmu__err(-EINVAL, "%s: raw event 'r' needs hex digits (e.g. r003c)",
					show(&b, s, len));
		if (r == -ERANGE)
			return pmu__err(-EINVAL, "%s: raw event wider than 64 bits", show(&b, s, len));
		return pmu__err(-ENOENT, "%s: unknown event", show(&b, s, len));
	}
	if (mods && (r = apply_mods(s, len, mods, mlen, &ev->a[0].attr)) < 0) {
		ev->n = 0;
		return r;
	}
	return 0;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int pmu__event_next(const char **p, const char **tok, size_t *len)
{
	const char *s = *p, *e;
	bool in_pmu = false;

	if (!s)
		return 0;
	for (e = s; *e && (in_pmu || *e != ','); e++)
		if (*e == '/')
			in_pmu = !in_pmu;
	*p = *e ? e + 1 : NULL;
	while (s < e && space(*s))
		s++;
	*tok = s;
	while (e > s && space(e[-1]))
		e--;
	*len = (size_t)(e - s);
	if (!*len)
		return pmu__err(-EINVAL, "empty event in list (stray ',' or empty string)");
	return 1;
}

const char *pmu__sysfs_root(void)
{
	const char *r = getenv("PMU_SYSFS_DEVICES");

	return r && *r ? r : "/sys/bus/event_source/devices";
}

PMU_API int pmu_event_attr(const char *event, struct perf_event_attr *attr)
{
	struct pmu__event ev;
	const char *p = event, *tok;
	size_t len;
	int r;

	if (!event || !attr)
		return pmu__err(-EINVAL, "pmu_event_attr: NULL argument");
	r = pmu__event_next(&p, &tok, &len);
	if (r < 0)
		return r;
	if (p) {
		struct shown b;

		return pmu__err(-EINVAL, "%s: one event expected, got a list", show(&b, event, strlen(event)));
	}
	r = pmu__event_parse(tok, len, &ev);
	if (r < 0)
		return r;
	*attr = ev.a[0].attr;
	return 0;
}
