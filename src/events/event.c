/* SPDX-License-Identifier: MIT */
/*
 * Event names into perf_event_attr: perf's generic hardware, cache and
 * software names, raw rNNNN, sysfs PMU terms and aliases (pmu/terms/mods and
 * bare aliases of the core PMUs), tracepoints, libpfm4 names; modifiers u/k/h.
 * A generic event on a machine with several core PMUs (hybrid x86,
 * heterogeneous arm64) becomes one attr per core PMU.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "events/event.h"
#include "events/event_pfm.h"

/* Software events that only ever happen in kernel context: user-only would always read 0. */
static bool kernel_only(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES || a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/*
 * Without modifiers, CPU events (hardware, cache, raw, software, core PMUs)
 * count user space only, but for context switches and migrations, which
 * happen in the kernel. Other PMUs (uncore, msr, tracepoints) count what
 * they count: many refuse exclude bits, and a tracepoint always fires in the
 * kernel.
 */
static void apply_mods(struct pmu__attr *pa, const struct pmu__mods *m, bool cpu)
{
	struct perf_event_attr *a = &pa->attr;

	if (m->given) {
		a->exclude_user = !m->u;
		a->exclude_kernel = !m->k;
		a->exclude_hv = !m->h;
	} else {
		a->exclude_user = 0;
		a->exclude_kernel = cpu && !kernel_only(a);
		a->exclude_hv = cpu;
	}
}

/* Types that count what the CPU does for the thread. */
static bool cpu_type(uint32_t t)
{
	return t == PERF_TYPE_HARDWARE || t == PERF_TYPE_SOFTWARE || t == PERF_TYPE_HW_CACHE ||
	       t == PERF_TYPE_RAW;
}

static int bad_mods(struct pmu__ctx *c, const char *m, size_t len)
{
	struct pmu__shown b;

	if (!len)
		return pmu__err(-EINVAL, "%s: empty modifier (use u, k, h or a combination, e.g. %.*s:u)",
				c->ev, (int)(c->len > 40 ? 40 : c->len - 1), c->s);
	return pmu__err(-EINVAL, "%s: bad modifier '%s' (use u, k, h or a combination)", c->ev,
			pmu__show(&b, m, len));
}

/* "rNNNN": 1 to 16 hex digits, optional 0x. 1 if s is one, 0 if not, -EINVAL/-ERANGE if malformed. */
static int parse_raw(const char *s, size_t len, uint64_t *v)
{
	size_t i = 1;

	if (len < 1 || s[0] != 'r')
		return 0;
	if (len >= 3 && s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))
		i = 3;
	if (i == len)
		return -EINVAL;	/* "r", "r0x": no digits */
	for (size_t j = i; j < len; j++)
		if (pmu__hex_digit(s[j]) < 0)
			return 0;
	if (len - i > 16)
		return -ERANGE;
	*v = 0;
	for (; i < len; i++)
		*v = *v << 4 | (uint64_t)pmu__hex_digit(s[i]);
	return 1;
}

static void free_descs(struct pmu__desc *d, int n)
{
	for (int i = 0; i < n; i++)
		pmu__desc_free(&d[i]);
}

/* ---- whole events ---- */

/* A generic hardware, cache or raw event: on each core PMU, or the first for raw. */
static int generic(struct pmu__ctx *c, uint32_t type, uint64_t config, struct pmu__event *ev)
{
	struct pmu__desc d[PMU_MAX_PMUS];
	int n = pmu__core_pmus(d), r = 0;
	unsigned k;

	if (n < 0)
		return pmu__prefix_err(c, n);	/* a core PMU's type file is malformed: named */
	if (n == 0) {
		/* no core PMU in sysfs: the open will say so */
		pmu__init_attr(&ev->a[0], type, config, "cpu");
		ev->n = 1;
		return 0;
	}
	k = type == PERF_TYPE_RAW || n == 1 ? 1 : (unsigned)n;
	for (unsigned i = 0; i < k; i++) {
		uint64_t ext = k > 1 ? (uint64_t)d[i].type << PERF_PMU_TYPE_SHIFT : 0;

		pmu__init_attr(&ev->a[i], type, config | ext, d[i].name);
		ev->a[i].alt = k > 1;
		if (!r && (r = pmu__auto_terms(&d[i], &ev->a[i], 0)) < 0)
			r = pmu__err(r, "%s: out of memory reading the formats of PMU %s", c->ev, d[i].name);
	}
	ev->n = k;
	free_descs(d, n);
	return r;
}

/* A bare alias: the core PMUs that have it, else any other PMU that has it. 0, -ENOENT quietly, -errno. */
static int bare_alias(struct pmu__ctx *c, const char *s, size_t len, struct pmu__event *ev, bool *cpu)
{
	struct pmu__desc d[PMU_MAX_PMUS];
	char buf[4096], canon[256], **names;
	int n = pmu__core_pmus(d), r = 0;
	size_t nn;

	if (n < 0)
		return pmu__prefix_err(c, n);
	*cpu = true;
	for (int i = 0; i < n && r >= 0; i++) {
		r = pmu__alias_read(d[i].name, s, len, buf, sizeof(buf), canon, sizeof(canon));
		if (r < 0)
			r = pmu__prefix_err(c, r);
		if (r > 0)
			r = pmu__pmu_terms(c, &d[i], n, s, len, &ev->a[ev->n++]);
	}
	free_descs(d, n);
	for (unsigned i = 0; ev->n > 1 && i < ev->n; i++)
		ev->a[i].alt = true;
	if (r < 0 || ev->n)
		return r < 0 ? r : 0;
	*cpu = false;
	if ((r = pmu__pmu_names(&names, &nn)) < 0)
		return r == -ENOMEM ? pmu__err(r, "%s: out of memory listing the PMUs", c->ev) : -ENOENT;
	for (size_t i = 0; i < nn && r >= 0; i++) {
		struct pmu__desc one;

		r = pmu__alias_read(names[i], s, len, buf, sizeof(buf), canon, sizeof(canon));
		if (r < 0)
			r = pmu__prefix_err(c, r);
		if (r <= 0)
			continue;
		r = pmu__desc_load(names[i], strlen(names[i]), &one);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		if (one.core) {
			pmu__desc_free(&one);
			continue;
		}
		if (ev->n == PMU_MAX_PMUS)
			r = pmu__err(-E2BIG, "%s: found in more than %d PMUs; name one (pmu/%s/)", c->ev,
				     PMU_MAX_PMUS, canon);
		else
			r = pmu__pmu_terms(c, &one, 0, s, len, &ev->a[ev->n++]);
		pmu__desc_free(&one);
	}
	pmu__names_free(names, nn);
	if (r < 0)
		return r;
	return ev->n ? 0 : -ENOENT;
}

/* A libpfm4 name: 0, -ENOENT quietly, -errno. */
static int pfm_event(struct pmu__ctx *c, const char *s, size_t len, struct pmu__event *ev, bool *cpu)
{
	uint64_t cfg[3];
	uint32_t type;
	char pmu[PMU_PMU_NAME];
	int r;

	/* with a copy of another machine's sysfs, libpfm4 would still describe this CPU */
	if (!pmu__sysfs_is_own())
		return -ENOENT;
	r = pmu__pfm_encode(s, len, &type, cfg, pmu, sizeof(pmu));
	if (r <= 0)
		return r ? r : -ENOENT;
	*cpu = true;
	if (type == PERF_TYPE_RAW || type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) {
		/* the core PMU, with its user-access terms */
		r = generic(c, PERF_TYPE_RAW, cfg[0], ev);
		if (r < 0)
			return r;
		ev->n = 1;
		ev->a[0].attr.type = type;
	} else {
		char **names;
		size_t n;

		pmu__init_attr(&ev->a[0], type, cfg[0], pmu);
		ev->n = 1;
		/* name the sysfs PMU of that type */
		if (pmu__pmu_names(&names, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				struct pmu__desc d;

				if (pmu__desc_load(names[i], strlen(names[i]), &d) < 0)
					continue;
				if (d.type == type) {
					pmu__copy_name(ev->a[0].pmu, d.name);
					*cpu = d.core;
				}
				pmu__desc_free(&d);
			}
			pmu__names_free(names, n);
		}
		pmu__err_clear();
	}
	ev->a[0].attr.config1 = cfg[1] | ev->a[0].attr.config1;
	ev->a[0].attr.config2 = cfg[2];
	return 0;
}

/*
 * A name without '/': generic, software, raw, cache, tracepoint, alias,
 * libpfm4 (when pfm). 0, -ENOENT when unknown (no message yet), -errno with a message.
 */
static int resolve_name(struct pmu__ctx *c, const char *s, size_t len, struct pmu__event *ev, bool *cpu,
			bool pfm)
{
	const struct pmu__name_id *id;
	uint32_t type;
	uint64_t v;
	int r;

	*cpu = true;
	if ((id = pmu__find_name(pmu__sw_names, pmu__n_sw_names, s, len))) {
		pmu__init_attr(&ev->a[0], PERF_TYPE_SOFTWARE, id->id, "software");
		ev->n = 1;
		return 0;
	}
	if ((r = pmu__generic_name(c, s, len, &type, &v)) != 0)
		return r < 0 ? r : generic(c, type, v, ev);
	if ((r = parse_raw(s, len, &v)) != 0) {
		if (r == -EINVAL)
			return pmu__err(-EINVAL, "%s: raw event 'r' needs hex digits (e.g. r003c)", c->ev);
		if (r == -ERANGE)
			return pmu__err(-EINVAL, "%s: raw event wider than 64 bits", c->ev);
		return generic(c, PERF_TYPE_RAW, v, ev);
	}
	if (memchr(s, ':', len) && (r = pmu__tracepoint_id(s, len, &v)) != 0) {
		if (r < 0)
			return pmu__prefix_err(c, r);
		*cpu = false;
		pmu__init_attr(&ev->a[0], PERF_TYPE_TRACEPOINT, v, "tracepoint");
		ev->n = 1;
		return 0;
	}
	if (!pmu__name_ok(s, len))
		return -ENOENT;
	r = bare_alias(c, s, len, ev, cpu);
	if (r != -ENOENT || !pfm)
		return r;
	return pfm_event(c, s, len, ev, cpu);
}

/* "pmu/terms/mods" */
/* name is an instance of family fam[0..len): fam_N, as uncore_imc_0 of uncore_imc. */
static bool in_family(const char *name, const char *fam, size_t len)
{
	return !strncmp(name, fam, len) && name[len] == '_' && name[len + 1] &&
	       strspn(name + len + 1, "0123456789") == strlen(name + len + 1);
}

/*
 * fam[0..len) names no PMU: as perf, every instance of that family
 * (uncore_imc: uncore_imc_0, uncore_imc_1, ...), whose counts are summed,
 * each with the terms t[0..tlen). -ENOENT quietly when there is none.
 */
static int family_event(struct pmu__ctx *c, const char *fam, size_t len, const char *t, size_t tlen,
			struct pmu__event *ev)
{
	struct pmu__shown b;
	char **names;
	size_t nn;
	int r = 0;

	if (pmu__pmu_names(&names, &nn) < 0)
		return -ENOENT;
	for (size_t i = 0; i < nn && r >= 0; i++) {
		struct pmu__desc one;

		if (!in_family(names[i], fam, len))
			continue;
		if (ev->n == PMU_MAX_PMUS) {
			r = pmu__err(-E2BIG, "%s: PMU family %s has more than %d instances; name one (%s)", c->ev,
				     pmu__show(&b, fam, len), PMU_MAX_PMUS, names[i]);
			break;
		}
		r = pmu__desc_load(names[i], strlen(names[i]), &one);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0) {
			r = pmu__prefix_err(c, r);
			break;
		}
		r = pmu__pmu_terms(c, &one, 0, t, tlen, &ev->a[ev->n++]);
		pmu__desc_free(&one);
	}
	pmu__names_free(names, nn);
	if (r < 0)
		ev->n = 0;
	return r < 0 ? r : ev->n ? 0 : -ENOENT;
}

static int pmu_event(struct pmu__ctx *c, struct pmu__event *ev)
{
	const char *s = c->s, *slash = memchr(s, '/', c->len), *close, *m;
	size_t plen = (size_t)(slash - s), mlen;
	struct pmu__desc d, cores[PMU_MAX_PMUS];
	struct pmu__mods mods;
	int r, ncore = 0;

	close = memchr(slash + 1, '/', c->len - plen - 1);
	if (!close)
		return pmu__err(-EINVAL, "%s: missing closing '/' (syntax: pmu/term=value,.../modifiers)", c->ev);
	m = close + 1;
	mlen = c->len - (size_t)(m - s);
	while (mlen && pmu__is_space(*m))
		m++, mlen--;
	if (mlen && *m == ':')
		m++, mlen--;
	while (plen && pmu__is_space(s[plen - 1]))
		plen--;
	while (plen && pmu__is_space(*s))
		s++, plen--;
	if (!pmu__mods_parse(m, mlen, &mods) && mlen)
		return bad_mods(c, m, mlen);
	if (!plen)
		return pmu__err(-EINVAL, "%s: missing PMU name before '/'", c->ev);
	r = pmu__desc_load(s, plen, &d);
	if (r == -ENOENT) {
		r = family_event(c, s, plen, slash + 1, (size_t)(close - slash - 1), ev);
		for (unsigned i = 0; i < ev->n; i++)
			apply_mods(&ev->a[i], &mods, cpu_type(ev->a[i].attr.type));
		return r == -ENOENT ? pmu__unknown_pmu(c, s, plen) : r;
	}
	if (r < 0)
		return pmu__prefix_err(c, r);
	if (d.core) {
		/* how many decides the encoding: never a guess */
		ncore = pmu__core_pmus(cores);
		if (ncore == -E2BIG) {
			ncore = PMU_MAX_PMUS + 1;	/* too many to count on all, not to name one */
			pmu__err_clear();
		} else if (ncore < 0) {
			pmu__desc_free(&d);
			return pmu__prefix_err(c, ncore);
		} else {
			free_descs(cores, ncore);
		}
	}
	r = pmu__pmu_terms(c, &d, ncore, slash + 1, (size_t)(close - slash - 1), &ev->a[0]);
	if (r == 0) {
		ev->n = 1;
		apply_mods(&ev->a[0], &mods, d.core || cpu_type(ev->a[0].attr.type));
	}
	pmu__desc_free(&d);
	return r;
}

int pmu__event_parse(const char *s, size_t len, struct pmu__event *ev)
{
	struct pmu__ctx c = { .s = s, .len = len };
	const char *colon;
	struct pmu__mods mods;
	size_t nlen;
	bool cpu = true;
	int r;

	memset(ev, 0, sizeof(*ev));
	if (!s || !len)
		return pmu__err(-EINVAL, "empty event name");
	c.ev = pmu__show(&c.b, s, len);
	if (memchr(s, '\0', len))
		return pmu__err(-EINVAL, "%s: NUL byte in event name", c.ev);
	/* perf's "{a,b}" reaches here split at its comma: no name to suggest */
	if (s[0] == '{' || (!memchr(s, '/', len) && memchr(s, '}', len)))
		return pmu__err(-EINVAL, "%s: event groups {a,b} are a pmu stat form; pmu_open() groups a set's "
				"events itself (PMU_NO_GROUP opens them apart)", c.ev);
	if (memchr(s, '/', len)) {
		r = pmu_event(&c, ev);
		goto done;
	}
	/* name:mods, when what follows the last ':' is a modifier string */
	nlen = pmu__mods_split(s, len, &mods);
	if (!nlen)
		return pmu__err(-EINVAL, "%s: missing event name before ':'", c.ev);
	/* "cycles:x", "sched:sched_switch:x": a known event with bad modifiers */
	for (int i = 0; i < 2 && memchr(s, ':', nlen); i++) {
		struct pmu__event tmp;
		bool tcpu;

		colon = i ? memchr(s, ':', nlen) : memrchr(s, ':', nlen);
		memset(&tmp, 0, sizeof(tmp));
		if (resolve_name(&c, s, (size_t)(colon - s), &tmp, &tcpu, false) == 0)
			return bad_mods(&c, colon + 1, len - (size_t)(colon - s) - 1);
	}
	r = resolve_name(&c, s, nlen, ev, &cpu, true);
	if (r == -ENOENT) {
		memset(ev, 0, sizeof(*ev));
		return pmu__unknown_event(&c, s, nlen);
	}
	if (r == 0)
		for (unsigned i = 0; i < ev->n; i++)
			apply_mods(&ev->a[i], &mods, cpu);
done:
	if (r < 0)
		memset(ev, 0, sizeof(*ev));
	return r;
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
	while (s < e && pmu__is_space(*s))
		s++;
	*tok = s;
	while (e > s && pmu__is_space(e[-1]))
		e--;
	*len = (size_t)(e - s);
	if (!*len)
		return pmu__err(-EINVAL, "empty event in list (stray ',' or empty string)");
	return 1;
}

/* The field of perf_event_attr at byte off (past 64), for E2BIG's message. */
static const char *attr_field(size_t off)
{
	if (off >= offsetof(struct perf_event_attr, config3))
		return "config3";
	if (off < offsetof(struct perf_event_attr, branch_sample_type))
		return "config2";
	return "a field after config2";
}

/*
 * The caller's struct is attr->size bytes (0: PERF_ATTR_SIZE_VER0, as the
 * kernel takes it, which every header's struct has: what 0.4 callers that
 * left it 0 get), and nothing past it is written. It may be larger than the
 * library's (newer headers): the rest is zeroed, as the kernel wants it.
 */
static int copy_attr(struct perf_event_attr *attr, const struct perf_event_attr *a, const char *event)
{
	size_t size = attr->size ? attr->size : PERF_ATTR_SIZE_VER0, n = size;
	const unsigned char *b = (const unsigned char *)a;
	struct pmu__shown s;

	if (n > sizeof(*a))
		n = sizeof(*a);
	for (size_t i = n; i < sizeof(*a); i++)
		if (b[i])
			return pmu__err(-E2BIG, "%s: the encoding sets %s, past the caller's struct "
					"perf_event_attr of %zu bytes (attr->size): build with newer kernel "
					"headers (config2: %d bytes, config3: %d)", pmu__show(&s, event, strlen(event)),
					attr_field(i), size, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER8);
	memcpy(attr, a, n);
	memset((char *)attr + n, 0, size - n);
	attr->size = (uint32_t)size;
	return 0;
}

static int event_attr(const char *event, struct perf_event_attr *attr)
{
	struct pmu__event ev;
	const char *p = event, *tok;
	size_t len;
	int r;

	if (!event || !attr)
		return pmu__err(-EINVAL, "pmu_event_attr: NULL argument");
	if (attr->size && (attr->size < PERF_ATTR_SIZE_VER0 || attr->size > PMU_SIZE_MAX || attr->size % 8))
		return pmu__err(-EINVAL, "pmu_event_attr: attr->size is %u, which no struct perf_event_attr "
				"has: set it to sizeof(struct perf_event_attr) (%d to %d, a multiple of 8)",
				attr->size, PERF_ATTR_SIZE_VER0, PMU_SIZE_MAX);
	r = pmu__event_next(&p, &tok, &len);
	if (r < 0)
		return r;
	if (p) {
		struct pmu__shown b;

		return pmu__err(-EINVAL, "%s: one event expected, got a list",
				pmu__show(&b, event, strlen(event)));
	}
	r = pmu__event_parse(tok, len, &ev);
	if (r < 0)
		return r;
	return copy_attr(attr, &ev.a[0].attr, event);
}

/* errno as it was on success: sysfs files probed on the way may be absent. */
PMU_API int pmu_event_attr(const char *event, struct perf_event_attr *attr)
{
	int saved = errno, r = event_attr(event, attr);

	if (r == 0)
		errno = saved;
	return r;
}

const char *pmu__attr_unit(const struct pmu__attr *pa, double *scale)
{
	bool clock = pa->attr.type == PERF_TYPE_SOFTWARE &&
		     (pa->attr.config == PERF_COUNT_SW_TASK_CLOCK || pa->attr.config == PERF_COUNT_SW_CPU_CLOCK);

	*scale = clock ? 1e-6 : pa->scale > 0 ? pa->scale : 1;
	return clock ? "msec" : pa->unit;
}
