/* SPDX-License-Identifier: MIT */
/*
 * The terms of a sysfs PMU event, "pmu/event=0x3c,umask=0,alias,name=x/":
 * checked in one pass, then applied in order (the alias's terms first, the
 * user's over them), with the arm64 user-access terms added last.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "events/event.h"
#include "parse/metric_defs.h"	/* pmu__metric_scale_unit(): a ScaleUnit and a .scale are read alike */

enum { T_USER = 1, T_ALIAS = 2, T_NEED = 4 };

/* "config", "config1".."config3": the word, or -1. */
static int config_word(const struct pmu__term *t)
{
	for (int w = 0; w < 4; w++)
		if (t->nlen == strlen(pmu__config_words[w]) && !memcmp(t->name, pmu__config_words[w], t->nlen))
			return w;
	return -1;
}

static bool is_name_term(const struct pmu__term *t)
{
	return t->nlen == 4 && !memcmp(t->name, "name", 4);
}

/* pmu__desc_format() found no term t: why, when it is not that there is none (errno ENOENT). */
static int format_missing(struct pmu__ctx *c, struct pmu__desc *d, const char *t, size_t tlen)
{
	struct pmu__shown b;

	if (errno == ENOMEM)
		return pmu__err(-ENOMEM, "%s: out of memory reading the formats of PMU %s", c->ev, d->name);
	if (errno == ENOSPC)
		return pmu__err(-E2BIG, "%s: term '%s' of PMU %s is one more than the %d distinct terms "
				"libpmu reads for one event", c->ev, pmu__show(&b, t, tlen), d->name,
				PMU_LAZY_FORMATS);
	return 0;
}

/* The PMU's terms, for "unknown term" messages. 0 or -ENOMEM. */
static int list_terms(struct pmu__desc *d, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (pmu__desc_all(d) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < d->nfmt && n + 1 < size; i++) {
		int k = snprintf(buf + n, size - n, "%s, ", d->fmt[i].name);

		if (k < 0 || (size_t)k >= size - n) {
			snprintf(buf + n, size - n, "...");
			return 0;
		}
		n += (size_t)k;
	}
	snprintf(buf + n, size - n, "config, config1, config2, config3");
	return 0;
}

static int check_format(struct pmu__ctx *c, struct pmu__desc *d, struct pmu__format *f)
{
	if (f->bad)
		return pmu__err(-EINVAL, "%s: %s/%s/format/%s is malformed: '%s' (expected e.g. config:0-7,32-35)",
				c->ev, pmu__sysfs_root(), d->name, f->name, f->bad);
	if (!PMU_HAVE_CONFIG3 && f->f.word == 3)
		return pmu__err(-EOPNOTSUPP, "%s: term '%s' sets config3, which this build does not know "
				"(rebuild with Linux 6.3+ headers)", c->ev, f->name);
	return 0;
}

static int put_field(struct pmu__ctx *c, struct pmu__desc *d, struct pmu__format *f,
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

static int bad_value(struct pmu__ctx *c, const struct pmu__term *t, int r)
{
	struct pmu__shown b, v;

	return pmu__err(-EINVAL, "%s: term '%s': %s '%s' (expected a number, decimal or 0x hex)",
			c->ev, pmu__show(&b, t->name, t->nlen), r == -ERANGE ? "value out of range" : "bad value",
			pmu__show(&v, t->val, t->vlen));
}

/* Applies an alias file's terms (before the user's, which override them). */
static int apply_alias(struct pmu__ctx *c, struct pmu__desc *d, const char *alias, const char *text,
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
						pmu__sysfs_root(), d->name, alias, pmu__config_words[w]);
			cfg[w] = v;
			continue;
		}
		f = pmu__desc_format(d, t.name, t.nlen);
		if (!f && (r = format_missing(c, d, t.name, t.nlen)) < 0)
			return r;
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

int pmu__auto_terms(struct pmu__desc *d, struct pmu__attr *pa, unsigned words_set)
{
	static const char *const names[] = { "rdpmc", "long" };

	for (unsigned i = 0; i < 2; i++) {
		struct pmu__format *f = pmu__desc_format(d, names[i], strlen(names[i]));
		uint64_t cfg[4] = { 0 };
		__u64 *w;

		if (!f && errno == ENOMEM)
			return -ENOMEM;
		if (!f || f->bad || f->flags || (words_set & (1u << f->f.word)))
			continue;
		w = pmu__attr_word(&pa->attr, f->f.word);
		if (!w)
			continue;
		cfg[f->f.word] = *w;
		if (pmu__field_put(&f->f, 1, cfg))
			continue;
		if (f->f.word == 1)
			*(i ? &pa->auto_long : &pa->auto_user) |= cfg[1] & ~*w;
		*w = cfg[f->f.word];
	}
	return 0;
}

/* What the check pass found: the event named among the terms, if any. */
struct named {
	const char *event;	/* an alias or generic name among the terms */
	size_t elen;
	bool is_alias;
	uint32_t gtype;		/* a generic name's type and config */
	uint64_t gconfig;
	char alias[4096];	/* an alias's terms and file name */
	char canon[256];
};

/* A bare term that is not a format: the event's name (an alias, or a generic name on a core PMU). */
static int check_name(struct pmu__ctx *c, struct pmu__desc *d, const struct pmu__term *t, struct named *nm)
{
	struct pmu__shown b;
	char tl[320];
	int r;

	if (!t->val) {
		if (nm->event)
			return pmu__err(-EINVAL, "%s: two event names in one event ('%.*s' and '%s')",
					c->ev, (int)(nm->elen > 64 ? 64 : nm->elen), nm->event,
					pmu__show(&b, t->name, t->nlen));
		r = pmu__alias_read(d->name, t->name, t->nlen, nm->alias, sizeof(nm->alias), nm->canon,
				    sizeof(nm->canon));
		if (r < 0)
			return pmu__prefix_err(c, r);
		nm->is_alias = r > 0;
		if (!r && d->core && (r = pmu__generic_name(c, t->name, t->nlen, &nm->gtype, &nm->gconfig)) < 0)
			return r;
		if (r > 0) {
			nm->event = t->name;
			nm->elen = t->nlen;
			return 0;
		}
	}
	if (list_terms(d, tl, sizeof(tl)) < 0)
		return pmu__err(-ENOMEM, "%s: out of memory reading the formats of PMU %s", c->ev, d->name);
	return pmu__unknown_term(c, d, t->name, t->nlen, tl);
}

/* Pass 1: every term is well formed and known; finds the event name if there is one. */
static int check_terms(struct pmu__ctx *c, struct pmu__desc *d, const char *t, size_t tlen, struct named *nm)
{
	const char *p = tlen ? t : NULL, *end = t + tlen;
	struct pmu__shown b;
	struct pmu__term term;
	uint64_t v;
	int r;

	while ((r = pmu__term_next(&p, end, &term)) > 0) {
		int w = config_word(&term);

		if (term.val && term.vlen == 1 && term.val[0] == '?')
			return pmu__err(-EINVAL, "%s: term '%s' needs a value, not '?'", c->ev,
					pmu__show(&b, term.name, term.nlen));
		if (is_name_term(&term) && term.val)
			continue;	/* perf's display name: the event is shown as written */
		if (w < 0 && !pmu__desc_format(d, term.name, term.nlen)) {
			if ((r = format_missing(c, d, term.name, term.nlen)) < 0 ||
			    (r = check_name(c, d, &term, nm)) < 0)
				return r;
			continue;
		}
		if (w >= 0 && !term.val)
			return pmu__err(-EINVAL, "%s: term '%s' needs a value", c->ev, pmu__config_words[w]);
		if (term.val && (r = pmu__term_value(term.val, term.vlen, &v)) < 0)
			return bad_value(c, &term, r);
	}
	if (r < 0)
		return pmu__err(-EINVAL, "%s: malformed term list '%s' (expected term=value,term,...)", c->ev,
				pmu__show(&b, t, tlen));
	return 0;
}

/* One of the user's terms over cfg; words_set collects the config words set by name. */
static int apply_term(struct pmu__ctx *c, struct pmu__desc *d, const struct named *nm, const struct pmu__term *t,
		      struct pmu__attr *pa, uint64_t cfg[4], unsigned *words_set)
{
	int w = config_word(t);
	struct pmu__format *f = w >= 0 ? NULL : pmu__desc_format(d, t->name, t->nlen);
	uint64_t v = 1;
	int r;

	if (t->val)
		pmu__term_value(t->val, t->vlen, &v);
	/* The generic event's config is its identity: another value counts another event. */
	if (nm->event && !nm->is_alias && (w == 0 || (f && !f->bad && f->f.word == 0)))
		return pmu__err(-EINVAL, "%s: term '%s' sets config, which generic event '%.*s' fixes "
				"(use a raw event or an event alias of PMU %s)", c->ev,
				w == 0 ? pmu__config_words[0] : f->name, (int)(nm->elen > 64 ? 64 : nm->elen),
				nm->event, d->name);
	if (w >= 0) {
		if (*words_set & (1u << w))
			return pmu__err(-EINVAL, "%s: duplicate term '%s'", c->ev, pmu__config_words[w]);
		if (!pmu__attr_word(&pa->attr, (unsigned)w))
			return pmu__err(-EOPNOTSUPP, "%s: this build does not know config3 "
					"(rebuild with Linux 6.3+ headers)", c->ev);
		*words_set |= 1u << w;
		cfg[w] = v;
		return 0;
	}
	if ((r = check_format(c, d, f)) < 0)
		return r;
	if (f->flags & T_USER)
		return pmu__err(-EINVAL, "%s: duplicate term '%s'", c->ev, f->name);
	f->flags |= T_USER;
	return put_field(c, d, f, v, cfg, "");
}

/* Pass 2: the event name, then the alias's terms, then the user's in order. */
static int apply_terms(struct pmu__ctx *c, struct pmu__desc *d, int ncore, const char *t, size_t tlen,
		       const struct named *nm, struct pmu__attr *pa)
{
	const char *p = tlen ? t : NULL, *end = t + tlen;
	uint64_t cfg[4] = { 0 };
	unsigned words_set = 0;
	struct pmu__term term;
	int r;

	if (nm->event && !nm->is_alias) {
		pa->attr.type = nm->gtype;
		cfg[0] = nm->gconfig | (ncore > 1 ? (uint64_t)d->type << PERF_PMU_TYPE_SHIFT : 0);
	}
	if (nm->is_alias && (r = apply_alias(c, d, nm->canon, nm->alias, cfg)) < 0)
		return r;
	while (pmu__term_next(&p, end, &term) > 0) {
		if ((is_name_term(&term) && term.val) || (!term.val && term.name == nm->event))
			continue;
		if ((r = apply_term(c, d, nm, &term, pa, cfg, &words_set)) < 0)
			return r;
	}
	for (unsigned i = 0; i < d->nfmt; i++)
		if ((d->fmt[i].flags & (T_NEED | T_USER)) == T_NEED)
			return pmu__err(-EINVAL, "%s: event '%s' of PMU %s needs a value for '%s' (add %s=N)",
					c->ev, nm->canon, d->name, d->fmt[i].name, d->fmt[i].name);
	for (unsigned w = 0; w < 4; w++) {
		__u64 *dst = pmu__attr_word(&pa->attr, w);

		if (dst)
			*dst = cfg[w];
	}
	if (pmu__auto_terms(d, pa, words_set) < 0)
		return pmu__err(-ENOMEM, "%s: out of memory reading the formats of PMU %s", c->ev, d->name);
	return 0;
}

/* The alias's .scale and .unit, as perf reads them, into pa: each only when well formed. */
static void alias_unit(const struct pmu__desc *d, const struct named *nm, struct pmu__attr *pa)
{
	char buf[64];
	const char *rest;
	double scale;

	if (pmu__alias_extra(d->name, nm->canon, "scale", buf, sizeof(buf)) > 0) {
		if (pmu__metric_scale_unit(buf, &scale, &rest) < 0)
			pmu__err_clear();	/* not a number: left out, the event resolved */
		else if (!*rest && scale > 0)
			pa->scale = scale;
	}
	/* A unit is a word or two ("Joules", "MiB"): anything else is left out, not escaped in every output. */
	if (pmu__alias_extra(d->name, nm->canon, "unit", buf, sizeof(buf)) > 0 && strlen(buf) < sizeof(pa->unit) &&
	    strspn(buf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /%._-") == strlen(buf))
		snprintf(pa->unit, sizeof(pa->unit), "%s", buf);
}

int pmu__pmu_terms(struct pmu__ctx *c, struct pmu__desc *d, int ncore, const char *t, size_t tlen,
		   struct pmu__attr *pa)
{
	struct named nm = { 0 };
	int r;

	for (unsigned i = 0; i < d->nfmt; i++)
		d->fmt[i].flags = 0;
	pmu__init_attr(pa, d->type, 0, d->name);
	r = check_terms(c, d, t, tlen, &nm);
	if (r >= 0)
		r = apply_terms(c, d, ncore, t, tlen, &nm, pa);
	if (r >= 0 && nm.is_alias)
		alias_unit(d, &nm, pa);
	return r;
}
