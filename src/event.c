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

#include "event.h"

/* Modifiers: which privilege levels to count. */
struct mods {
	bool given, u, k, h;
};

/* The event being resolved, for messages. */
struct ctx {
	const char *s;
	size_t len;
	struct pmu__shown b;
	const char *ev;		/* s as shown */
};

static void copy_name(char dst[PMU_PMU_NAME], const char *src)
{
	size_t n = strnlen(src, PMU_PMU_NAME - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void init_attr(struct pmu__attr *pa, uint32_t type, uint64_t config, const char *pmu)
{
	memset(pa, 0, sizeof(*pa));
	pa->attr.size = sizeof(pa->attr);
	pa->attr.type = type;
	pa->attr.config = config;
	copy_name(pa->pmu, pmu);
}

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
static void apply_mods(struct pmu__attr *pa, const struct mods *m, bool cpu)
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

/* "u", "kh", ...: 1 when s is a modifier string, 0 when not. */
static int parse_mods(const char *s, size_t len, struct mods *m)
{
	memset(m, 0, sizeof(*m));
	if (!len)
		return 0;
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case 'u': m->u = true; break;
		case 'k': m->k = true; break;
		case 'h': m->h = true; break;
		default: return 0;
		}
	}
	m->given = true;
	return 1;
}

static int bad_mods(struct ctx *c, const char *m, size_t len)
{
	struct pmu__shown b;

	if (!len)
		return pmu__err(-EINVAL, "%s: empty modifier (use u, k, h or a combination, e.g. %.*s:u)",
				c->ev, (int)(c->len > 40 ? 40 : c->len - 1), c->s);
	return pmu__err(-EINVAL, "%s: bad modifier '%s' (use u, k, h or a combination)", c->ev,
			pmu__show(&b, m, len));
}

/* Puts the event in front of a callee's message that names only a file. */
static int prefix_err(struct ctx *c, int r)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "%s", pmu_errmsg());
	return pmu__err(r, "%s: %s", c->ev, msg);
}

static const struct pmu__name_id *find_name(const struct pmu__name_id *t, size_t n, const char *s, size_t len)
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

/* "rNNNN": 1 to 16 hex digits, optional 0x. 1 if s is one, 0 if not, -EINVAL/-ERANGE if malformed. */
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

/* Generic hardware or cache name: 1 with type and config, 0 if not one, -EINVAL (message set). */
static int generic_name(struct ctx *c, const char *s, size_t len, uint32_t *type, uint64_t *config)
{
	const struct pmu__name_id *id = find_name(pmu__hw_names, pmu__n_hw_names, s, len);
	struct pmu__shown b;
	int r;

	if (id) {
		*type = PERF_TYPE_HARDWARE;
		*config = id->id;
		return 1;
	}
	r = pmu__cache_parse(s, len, config);
	if (r < 0)
		return pmu__err(-EINVAL, "%s: '%s' names an operation this cache does not have "
				"(see pmu list for the valid cache events)", c->ev, pmu__show(&b, s, len));
	if (r > 0)
		*type = PERF_TYPE_HW_CACHE;
	return r;
}

static void free_descs(struct pmu__desc *d, int n)
{
	for (int i = 0; i < n; i++)
		pmu__desc_free(&d[i]);
}

/* ---- sysfs PMU terms ---- */

enum { T_USER = 1, T_ALIAS = 2, T_NEED = 4 };

static const char *const words[] = { "config", "config1", "config2", "config3" };

/* "config", "config1".."config3": the word, or -1. */
static int config_word(const struct pmu__term *t)
{
	for (int w = 0; w < 4; w++)
		if (t->nlen == strlen(words[w]) && !memcmp(t->name, words[w], t->nlen))
			return w;
	return -1;
}

static bool is_name_term(const struct pmu__term *t)
{
	return t->nlen == 4 && !memcmp(t->name, "name", 4);
}

/* The PMU's terms, for "unknown term" messages. */
static void list_terms(struct pmu__desc *d, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	pmu__desc_all(d);
	for (unsigned i = 0; i < d->nfmt && n + 1 < size; i++) {
		int k = snprintf(buf + n, size - n, "%s, ", d->fmt[i].name);

		if (k < 0 || (size_t)k >= size - n) {
			snprintf(buf + n, size - n, "...");
			return;
		}
		n += (size_t)k;
	}
	snprintf(buf + n, size - n, "config, config1, config2, config3");
}

static int check_format(struct ctx *c, struct pmu__desc *d, struct pmu__format *f)
{
	struct pmu__shown b;

	if (f->bad)
		return pmu__err(-EINVAL, "%s: %s/%s/format/%s is malformed: '%s' (expected e.g. config:0-7,32-35)",
				c->ev, pmu__sysfs_root(), d->name, f->name, pmu__show(&b, f->bad, strlen(f->bad)));
	if (!PMU_HAVE_CONFIG3 && f->f.word == 3)
		return pmu__err(-EOPNOTSUPP, "%s: term '%s' sets config3, which this build does not know "
				"(rebuild with Linux 6.3+ headers)", c->ev, f->name);
	return 0;
}

static int put_field(struct ctx *c, struct pmu__desc *d, struct pmu__format *f,
		     uint64_t v, uint64_t cfg[4], const char *where)
{
	char spec[96];

	if (pmu__field_put(&f->f, v, cfg) == 0)
		return 0;
	pmu__field_str(&f->f, spec, sizeof(spec));
	return pmu__err(-EINVAL, "%s: %svalue 0x%llx is wider than term '%s' of PMU %s (%u bit%s, %s)",
			c->ev, where, (unsigned long long)v, f->name, d->name, f->f.width,
			f->f.width == 1 ? "" : "s", spec);
}

static int bad_value(struct ctx *c, const struct pmu__term *t, int r)
{
	struct pmu__shown b, v;

	return pmu__err(-EINVAL, "%s: term '%s': %s '%s' (expected a number, decimal or 0x hex)",
			c->ev, pmu__show(&b, t->name, t->nlen), r == -ERANGE ? "value out of range" : "bad value",
			pmu__show(&v, t->val, t->vlen));
}

/* Applies an alias file's terms (before the user's, which override them). */
static int apply_alias(struct ctx *c, struct pmu__desc *d, const char *alias, const char *text,
		       uint64_t cfg[4])
{
	const char *p = text, *end = text + strlen(text);
	struct pmu__term t;
	struct pmu__shown b;
	uint64_t v;
	int r;

	if (p == end)
		p = NULL;
	while ((r = pmu__term_next(&p, end, &t)) > 0) {
		struct pmu__format *f;
		int w = config_word(&t);

		v = 1;
		if (t.val && (r = pmu__term_value(t.val, t.vlen, &v)) < 0)
			return pmu__err(-EINVAL, "%s: %s/%s/events/%s is malformed: bad value in '%s'",
					c->ev, pmu__sysfs_root(), d->name, alias, pmu__show(&b, text, strlen(text)));
		if (w >= 0) {
			if (r == 1 || (w == 3 && !PMU_HAVE_CONFIG3))
				return pmu__err(-EINVAL, "%s: %s/%s/events/%s: cannot use '%s'", c->ev,
						pmu__sysfs_root(), d->name, alias, words[w]);
			cfg[w] = v;
			continue;
		}
		f = pmu__desc_format(d, t.name, t.nlen);
		if (!f)
			return pmu__err(-EINVAL, "%s: %s/%s/events/%s uses '%s', which is not a term of PMU %s",
					c->ev, pmu__sysfs_root(), d->name, alias, pmu__show(&b, t.name, t.nlen),
					d->name);
		if ((r = check_format(c, d, f)) < 0)
			return r;
		f->flags |= T_ALIAS;
		if (t.val && t.vlen == 1 && t.val[0] == '?') {
			f->flags |= T_NEED;
			continue;
		}
		if ((r = put_field(c, d, f, v, cfg, "alias ")) < 0)
			return r;
	}
	if (r < 0)
		return pmu__err(-EINVAL, "%s: %s/%s/events/%s is malformed: '%s'", c->ev, pmu__sysfs_root(),
				d->name, alias, pmu__show(&b, text, strlen(text)));
	return 0;
}

/* Sets a PMU's rdpmc and long format terms (arm64 user access) unless the event set them. */
static void auto_terms(struct pmu__desc *d, struct pmu__attr *pa, unsigned words_set)
{
	static const char *const names[] = { "rdpmc", "long" };

	for (unsigned i = 0; i < 2; i++) {
		struct pmu__format *f = pmu__desc_format(d, names[i], strlen(names[i]));
		uint64_t cfg[4] = { 0 };
		__u64 *w;

		if (!f || f->bad || f->flags || (words_set & (1u << f->f.word)))
			continue;
		w = pmu__attr_word(&pa->attr, f->f.word);
		if (!w)
			continue;
		cfg[f->f.word] = *w;
		if (pmu__field_put(&f->f, 1, cfg))
			continue;
		if (i == 1 && f->f.word == 1)
			pa->auto_long |= cfg[1] & ~*w;
		*w = cfg[f->f.word];
	}
}

/*
 * Resolves the terms [t, t+tlen) of PMU d into pa. ncore: the number of core
 * PMUs (a generic name inside a core PMU gets its extended type when > 1).
 */
static int pmu_terms(struct ctx *c, struct pmu__desc *d, int ncore, const char *t, size_t tlen,
		     struct pmu__attr *pa)
{
	const char *p = t, *end = t + tlen;
	char alias[4096], canon[256], tl[320];
	const char *event = NULL;	/* an alias or generic name among the terms */
	size_t elen = 0;
	bool is_alias = false;
	uint32_t gtype = 0;
	uint64_t cfg[4] = { 0 }, gconfig = 0, v;
	unsigned words_set = 0;
	struct pmu__shown b;
	struct pmu__term term;
	int r;

	for (unsigned i = 0; i < d->nfmt; i++)
		d->fmt[i].flags = 0;
	init_attr(pa, d->type, 0, d->name);

	/* Pass 1: check every term, find the event name if there is one. */
	if (!tlen)
		p = NULL;
	while ((r = pmu__term_next(&p, end, &term)) > 0) {
		struct pmu__format *f;
		int w = config_word(&term);

		if (term.val && term.vlen == 1 && term.val[0] == '?') {
			r = pmu__err(-EINVAL, "%s: term '%s' needs a value, not '?'", c->ev,
				     pmu__show(&b, term.name, term.nlen));
			goto out;
		}
		if (is_name_term(&term) && term.val)
			continue;	/* perf's display name: the event is shown as written */
		if (w >= 0 || (f = pmu__desc_format(d, term.name, term.nlen))) {
			if (w >= 0 && !term.val) {
				r = pmu__err(-EINVAL, "%s: term '%s' needs a value", c->ev, words[w]);
				goto out;
			}
			if (term.val && (r = pmu__term_value(term.val, term.vlen, &v)) < 0) {
				r = bad_value(c, &term, r);
				goto out;
			}
			continue;
		}
		if (!term.val) {
			if (event) {
				r = pmu__err(-EINVAL, "%s: two event names in one event ('%.*s' and '%s')",
					     c->ev, (int)(elen > 64 ? 64 : elen), event,
					     pmu__show(&b, term.name, term.nlen));
				goto out;
			}
			r = pmu__alias_read(d->name, term.name, term.nlen, alias, sizeof(alias), canon,
					    sizeof(canon));
			if (r < 0) {
				r = prefix_err(c, r);
				goto out;
			}
			if (r > 0) {
				event = term.name;
				elen = term.nlen;
				is_alias = true;
				continue;
			}
			if (d->core && (r = generic_name(c, term.name, term.nlen, &gtype, &gconfig)) != 0) {
				if (r < 0)
					goto out;
				event = term.name;
				elen = term.nlen;
				continue;
			}
		}
		list_terms(d, tl, sizeof(tl));
		r = pmu__err(-EINVAL, "%s: unknown term '%s' for PMU %s (its terms: %s; its events: pmu list %s/)",
			     c->ev, pmu__show(&b, term.name, term.nlen), d->name, tl, d->name);
		goto out;
	}
	if (r < 0) {
		r = pmu__err(-EINVAL, "%s: malformed term list '%s' (expected term=value,term,...)", c->ev,
			     pmu__show(&b, t, tlen));
		goto out;
	}

	/* Pass 2: the event name, then the alias's terms, then the user's in order. */
	if (event && !is_alias) {
		pa->attr.type = gtype;
		cfg[0] = gconfig | (ncore > 1 ? (uint64_t)d->type << PERF_PMU_TYPE_SHIFT : 0);
	}
	if (is_alias && (r = apply_alias(c, d, canon, alias, cfg)) < 0)
		goto out;
	p = tlen ? t : NULL;
	while (pmu__term_next(&p, end, &term) > 0) {
		struct pmu__format *f;
		int w = config_word(&term);

		if ((is_name_term(&term) && term.val) || (!term.val && term.name == event))
			continue;
		v = 1;
		if (term.val)
			pmu__term_value(term.val, term.vlen, &v);
		f = w >= 0 ? NULL : pmu__desc_format(d, term.name, term.nlen);
		/* The generic event's config is its identity: another value counts another event. */
		if (event && !is_alias && (w == 0 || (f && !f->bad && f->f.word == 0))) {
			r = pmu__err(-EINVAL, "%s: term '%s' sets config, which generic event '%.*s' fixes "
				     "(use a raw event or an event alias of PMU %s)", c->ev,
				     w == 0 ? words[0] : f->name, (int)(elen > 64 ? 64 : elen), event, d->name);
			goto out;
		}
		if (w >= 0) {
			if (words_set & (1u << w)) {
				r = pmu__err(-EINVAL, "%s: duplicate term '%s'", c->ev, words[w]);
				goto out;
			}
			if (!pmu__attr_word(&pa->attr, (unsigned)w)) {
				r = pmu__err(-EOPNOTSUPP, "%s: this build does not know config3 "
					     "(rebuild with Linux 6.3+ headers)", c->ev);
				goto out;
			}
			words_set |= 1u << w;
			cfg[w] = v;
			continue;
		}
		if ((r = check_format(c, d, f)) < 0)
			goto out;
		if (f->flags & T_USER) {
			r = pmu__err(-EINVAL, "%s: duplicate term '%s'", c->ev, f->name);
			goto out;
		}
		f->flags |= T_USER;
		if ((r = put_field(c, d, f, v, cfg, "")) < 0)
			goto out;
	}
	for (unsigned i = 0; i < d->nfmt; i++)
		if ((d->fmt[i].flags & (T_NEED | T_USER)) == T_NEED) {
			r = pmu__err(-EINVAL, "%s: event '%s' of PMU %s needs a value for '%s' (add %s=N)",
				     c->ev, canon, d->name, d->fmt[i].name, d->fmt[i].name);
			goto out;
		}
	for (unsigned w = 0; w < 4; w++) {
		__u64 *dst = pmu__attr_word(&pa->attr, w);

		if (dst)
			*dst = cfg[w];
	}
	auto_terms(d, pa, words_set);
	r = 0;
out:
	return r;
}

/* ---- suggestions ---- */

#define SUGGEST 3
struct suggest {
	const char *in;
	size_t len;
	unsigned n;
	unsigned dist[SUGGEST];
	char name[SUGGEST][80];
};

/* Edit distance ignoring case, or more than limit; inputs are short (callers cap them). */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb, unsigned limit)
{
	unsigned row[81], best_row;

	if (la > 80 || lb > 80)
		return ~0u;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			unsigned best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
		best_row = row[0];
		for (size_t j = 1; j <= lb; j++)
			best_row = row[j] < best_row ? row[j] : best_row;
		if (best_row > limit)
			return best_row;	/* rows never get smaller */
	}
	return row[lb];
}

static void suggest_add(struct suggest *sg, const char *name)
{
	size_t ln = strlen(name);
	unsigned d, limit = sg->len / 3 > 2 ? (unsigned)(sg->len / 3) : 2, i;

	if (sg->len > 64 || ln >= sizeof(sg->name[0]))
		return;
	/* lengths alone can rule a name out */
	if ((ln > sg->len ? ln - sg->len : sg->len - ln) > limit)
		d = ~0u;
	else
		d = distance(sg->in, sg->len, name, ln, limit);
	/* a name that starts with what was typed is a good guess too */
	if (d > limit && sg->len >= 3 && ln > sg->len && !strncasecmp(name, sg->in, sg->len))
		d = limit;
	if (d > limit)
		return;
	for (i = 0; i < sg->n; i++)
		if (!strcmp(sg->name[i], name))
			return;
	for (i = sg->n; i > 0 && sg->dist[i - 1] > d; i--)
		if (i < SUGGEST) {
			sg->dist[i] = sg->dist[i - 1];
			memcpy(sg->name[i], sg->name[i - 1], sizeof(sg->name[i]));
		}
	if (i >= SUGGEST)
		return;
	sg->dist[i] = d;
	memcpy(sg->name[i], name, ln + 1);
	if (sg->n < SUGGEST)
		sg->n++;
}

static void suggest_known(struct suggest *sg)
{
	struct pmu__desc d[PMU_MAX_PMUS];
	char buf[80], **names;
	uint64_t cfg;
	size_t n;
	int nc;

	for (size_t i = 0; i < pmu__n_hw_names; i++)
		suggest_add(sg, pmu__hw_names[i].name);
	for (size_t i = 0; i < pmu__n_sw_names; i++)
		suggest_add(sg, pmu__sw_names[i].name);
	for (unsigned i = 0; pmu__cache_name(i, buf, sizeof(buf), &cfg); i++)
		suggest_add(sg, buf);
	nc = pmu__core_pmus(d);
	for (int i = 0; i < nc; i++) {
		if (pmu__alias_names(d[i].name, &names, &n) < 0)
			continue;
		for (size_t k = 0; k < n; k++)
			suggest_add(sg, names[k]);
		pmu__names_free(names, n);
	}
	free_descs(d, nc > 0 ? nc : 0);
}

/* "sched:sched_switch": lower case, one colon */
static bool tracepoint_like(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);

	if (!colon || colon == s || colon == s + len - 1 || memchr(colon + 1, ':', len - (size_t)(colon - s) - 1))
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] != ':' && !islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static int unknown(struct ctx *c, const char *what, struct suggest *sg)
{
	int r = pmu__err(-ENOENT, "%s: unknown %s", c->ev, what);

	for (unsigned i = 0; i < sg->n; i++)
		pmu__err_append("%s%s", i ? ", " : " (did you mean ", sg->name[i]);
	if (sg->n)
		pmu__err_append("?)");
	if (tracepoint_like(sg->in, sg->len) && !getenv("PMU_TRACEFS") &&
	    access("/sys/kernel/tracing/events", F_OK) && access("/sys/kernel/debug/tracing/events", F_OK))
		pmu__err_append("; tracepoints need tracefs (mount -t tracefs nodev /sys/kernel/tracing)");
	else
		pmu__err_append("; pmu list shows the events of this machine");
	return r;
}

/* ---- whole events ---- */

/* A generic hardware, cache or raw event: on each core PMU, or the first for raw. */
static int generic(uint32_t type, uint64_t config, struct pmu__event *ev)
{
	struct pmu__desc d[PMU_MAX_PMUS];
	int n = pmu__core_pmus(d);
	unsigned k;

	if (n < 0)
		return n;	/* a core PMU's type file is malformed: named */
	if (n == 0) {
		/* no core PMU in sysfs: the open will say so */
		init_attr(&ev->a[0], type, config, "cpu");
		ev->n = 1;
		return 0;
	}
	k = type == PERF_TYPE_RAW || n == 1 ? 1 : (unsigned)n;
	for (unsigned i = 0; i < k; i++) {
		uint64_t ext = k > 1 ? (uint64_t)d[i].type << PERF_PMU_TYPE_SHIFT : 0;

		init_attr(&ev->a[i], type, config | ext, d[i].name);
		auto_terms(&d[i], &ev->a[i], 0);
	}
	ev->n = k;
	free_descs(d, n);
	return 0;
}

/* A bare alias: the core PMUs that have it, else any other PMU that has it. 0, -ENOENT quietly, -errno. */
static int bare_alias(struct ctx *c, const char *s, size_t len, struct pmu__event *ev, bool *cpu)
{
	struct pmu__desc d[PMU_MAX_PMUS];
	char buf[4096], canon[256], **names;
	int n = pmu__core_pmus(d), r = 0;
	size_t nn;

	if (n < 0)
		return n;
	*cpu = true;
	for (int i = 0; i < n && r >= 0; i++) {
		r = pmu__alias_read(d[i].name, s, len, buf, sizeof(buf), canon, sizeof(canon));
		if (r < 0)
			r = prefix_err(c, r);
		if (r > 0)
			r = pmu_terms(c, &d[i], n, s, len, &ev->a[ev->n++]);
	}
	free_descs(d, n);
	if (r < 0 || ev->n)
		return r < 0 ? r : 0;
	*cpu = false;
	if (pmu__pmu_names(&names, &nn) < 0)
		return -ENOENT;
	for (size_t i = 0; i < nn && r >= 0; i++) {
		struct pmu__desc one;

		r = pmu__alias_read(names[i], s, len, buf, sizeof(buf), canon, sizeof(canon));
		if (r < 0)
			r = prefix_err(c, r);
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
			r = pmu_terms(c, &one, 0, s, len, &ev->a[ev->n++]);
		pmu__desc_free(&one);
	}
	pmu__names_free(names, nn);
	if (r < 0)
		return r;
	return ev->n ? 0 : -ENOENT;
}

/* A libpfm4 name: 0, -ENOENT quietly, -errno. */
static int pfm_event(const char *s, size_t len, struct pmu__event *ev, bool *cpu)
{
	uint64_t cfg[3];
	uint32_t type;
	char pmu[PMU_PMU_NAME];
	const char *copy = getenv("PMU_SYSFS_DEVICES");
	int r;

	/* with a copy of another machine's sysfs, libpfm4 would still describe this CPU */
	if (copy && *copy)
		return -ENOENT;
	r = pmu__pfm_encode(s, len, &type, cfg, pmu, sizeof(pmu));
	if (r <= 0)
		return r ? r : -ENOENT;
	*cpu = true;
	if (type == PERF_TYPE_RAW || type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) {
		/* the core PMU, with its user-access terms */
		r = generic(PERF_TYPE_RAW, cfg[0], ev);
		if (r < 0)
			return r;
		ev->n = 1;
		ev->a[0].attr.type = type;
	} else {
		char **names;
		size_t n;

		init_attr(&ev->a[0], type, cfg[0], pmu);
		ev->n = 1;
		/* name the sysfs PMU of that type */
		if (pmu__pmu_names(&names, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				struct pmu__desc d;

				if (pmu__desc_load(names[i], strlen(names[i]), &d) < 0)
					continue;
				if (d.type == type) {
					copy_name(ev->a[0].pmu, d.name);
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
static int resolve_name(struct ctx *c, const char *s, size_t len, struct pmu__event *ev, bool *cpu,
			bool pfm)
{
	const struct pmu__name_id *id;
	uint32_t type;
	uint64_t v;
	int r;

	*cpu = true;
	if ((id = find_name(pmu__sw_names, pmu__n_sw_names, s, len))) {
		init_attr(&ev->a[0], PERF_TYPE_SOFTWARE, id->id, "software");
		ev->n = 1;
		return 0;
	}
	if ((r = generic_name(c, s, len, &type, &v)) != 0)
		return r < 0 ? r : generic(type, v, ev);
	if ((r = parse_raw(s, len, &v)) != 0) {
		if (r == -EINVAL)
			return pmu__err(-EINVAL, "%s: raw event 'r' needs hex digits (e.g. r003c)", c->ev);
		if (r == -ERANGE)
			return pmu__err(-EINVAL, "%s: raw event wider than 64 bits", c->ev);
		return generic(PERF_TYPE_RAW, v, ev);
	}
	if (memchr(s, ':', len) && (r = pmu__tracepoint_id(s, len, &v)) != 0) {
		if (r < 0)
			return prefix_err(c, r);
		*cpu = false;
		init_attr(&ev->a[0], PERF_TYPE_TRACEPOINT, v, "tracepoint");
		ev->n = 1;
		return 0;
	}
	if (!pmu__name_ok(s, len))
		return -ENOENT;
	r = bare_alias(c, s, len, ev, cpu);
	if (r != -ENOENT || !pfm)
		return r;
	return pfm_event(s, len, ev, cpu);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* "pmu/terms/mods" */
static int pmu_event(struct ctx *c, struct pmu__event *ev)
{
	const char *s = c->s, *slash = memchr(s, '/', c->len), *close, *m;
	size_t plen = (size_t)(slash - s), mlen;
	struct pmu__desc d, cores[PMU_MAX_PMUS];
	struct pmu__shown b;
	struct mods mods;
	int r, ncore = 0;

	close = memchr(slash + 1, '/', c->len - plen - 1);
	if (!close)
		return pmu__err(-EINVAL, "%s: missing closing '/' (syntax: pmu/term=value,.../modifiers)", c->ev);
	m = close + 1;
	mlen = c->len - (size_t)(m - s);
	while (mlen && is_blank(*m))
		m++, mlen--;
	if (mlen && *m == ':')
		m++, mlen--;
	while (plen && is_blank(s[plen - 1]))
		plen--;
	while (plen && is_blank(*s))
		s++, plen--;
	memset(&mods, 0, sizeof(mods));
	if (mlen && !parse_mods(m, mlen, &mods))
		return bad_mods(c, m, mlen);
	if (!plen)
		return pmu__err(-EINVAL, "%s: missing PMU name before '/'", c->ev);
	r = pmu__desc_load(s, plen, &d);
	if (r == -ENOENT) {
		struct suggest sg = { .in = s, .len = plen };
		char **names;
		size_t n;

		if (pmu__pmu_names(&names, &n) == 0) {
			for (size_t i = 0; i < n; i++)
				suggest_add(&sg, names[i]);
			pmu__names_free(names, n);
		}
		r = pmu__err(-ENOENT, "%s: unknown PMU '%s' (not in %s)", c->ev, pmu__show(&b, s, plen),
			     pmu__sysfs_root());
		for (unsigned i = 0; i < sg.n; i++)
			pmu__err_append("%s%s", i ? ", " : "; did you mean ", sg.name[i]);
		if (sg.n)
			pmu__err_append("?");
		return r;
	}
	if (r < 0)
		return prefix_err(c, r);
	if (d.core) {
		ncore = pmu__core_pmus(cores);
		if (ncore > 0)
			free_descs(cores, ncore);
	}
	r = pmu_terms(c, &d, ncore, slash + 1, (size_t)(close - slash - 1), &ev->a[0]);
	if (r == 0) {
		ev->n = 1;
		apply_mods(&ev->a[0], &mods, d.core || cpu_type(ev->a[0].attr.type));
	}
	pmu__desc_free(&d);
	return r;
}

int pmu__event_parse(const char *s, size_t len, struct pmu__event *ev)
{
	struct ctx c = { .s = s, .len = len };
	const char *colon;
	struct mods mods;
	size_t nlen = len;
	bool cpu = true;
	int r;

	memset(ev, 0, sizeof(*ev));
	if (!s || !len)
		return pmu__err(-EINVAL, "empty event name");
	c.ev = pmu__show(&c.b, s, len);
	if (memchr(s, '\0', len))
		return pmu__err(-EINVAL, "%s: NUL byte in event name", c.ev);
	if (memchr(s, '/', len)) {
		r = pmu_event(&c, ev);
		goto done;
	}
	/* name:mods, when what follows the last ':' is a modifier string */
	memset(&mods, 0, sizeof(mods));
	colon = memrchr(s, ':', len);
	if (colon && parse_mods(colon + 1, len - (size_t)(colon - s) - 1, &mods))
		nlen = (size_t)(colon - s);
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
		struct suggest sg = { .in = s, .len = nlen };

		memset(ev, 0, sizeof(*ev));
		suggest_known(&sg);
		return unknown(&c, "event", &sg);
	}
	if (r == 0)
		for (unsigned i = 0; i < ev->n; i++)
			apply_mods(&ev->a[i], &mods, cpu);
done:
	if (r < 0)
		memset(ev, 0, sizeof(*ev));
	return r;
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
		struct pmu__shown b;

		return pmu__err(-EINVAL, "%s: one event expected, got a list",
				pmu__show(&b, event, strlen(event)));
	}
	r = pmu__event_parse(tok, len, &ev);
	if (r < 0)
		return r;
	*attr = ev.a[0].attr;
	return 0;
}
