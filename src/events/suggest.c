/* SPDX-License-Identifier: MIT */
/* "Did you mean": the known names nearest to an unknown event or PMU name. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/event.h"

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

/* 0, or -ENOMEM when some names could not be read */
static int suggest_known(struct suggest *sg)
{
	struct pmu__desc d[PMU_MAX_PMUS];
	char buf[80], **names;
	uint64_t cfg;
	size_t n;
	int nc;

	nc = pmu__core_pmus(d);
	if (nc == -ENOMEM)
		return nc;
	/* without a core PMU, generic hardware names would lead nowhere */
	for (size_t i = 0; nc > 0 && i < pmu__n_hw_names; i++)
		suggest_add(sg, pmu__hw_names[i].name);
	for (size_t i = 0; i < pmu__n_sw_names; i++)
		suggest_add(sg, pmu__sw_names[i].name);
	for (unsigned i = 0; nc > 0 && pmu__cache_name(i, buf, sizeof(buf), &cfg); i++)
		suggest_add(sg, buf);
	for (int i = 0; i < nc; i++) {
		if (pmu__alias_names(d[i].name, &names, &n) < 0) {
			nc = -ENOMEM;
			for (int k = 0; k <= i; k++)
				pmu__desc_free(&d[k]);
			return nc;
		}
		for (size_t k = 0; k < n; k++)
			suggest_add(sg, names[k]);
		pmu__names_free(names, n);
	}
	for (int i = 0; i < nc; i++)
		pmu__desc_free(&d[i]);
	return 0;
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

/* "sched:sched_swich": the tracepoints, when tracefs can be read. 0 or -ENOMEM. */
static int suggest_tracepoints(struct suggest *sg)
{
	struct pmu__tracepoint *tp;
	size_t n;
	int r = pmu__tracepoints(&tp, &n);

	if (r < 0)
		return r == -ENOMEM ? r : 0;
	for (size_t i = 0; i < n; i++)
		suggest_add(sg, tp[i].name);
	pmu__tracepoints_free(tp, n);
	return 0;
}

int pmu__unknown_event(struct pmu__ctx *c, const char *s, size_t len)
{
	struct suggest one = { .in = s, .len = len }, *sg = &one;
	char buf[PATH_MAX + 128];
	const char *problem;
	int r;

	/* out of memory: the message would lack its hints, the caller may retry */
	if (suggest_known(sg) < 0 || (tracepoint_like(s, len) && suggest_tracepoints(sg) < 0))
		return pmu__err(-ENOMEM, "%s: unknown event (out of memory looking for similar names)", c->ev);
	/* the tracepoint may well exist: this user cannot see it */
	if (tracepoint_like(s, len) && pmu__tracefs_denied())
		return pmu__err(-EACCES, "%s: permission denied: %s", c->ev, pmu__tracefs_problem(buf, sizeof(buf)));
	r = pmu__err(-ENOENT, "%s: unknown event", c->ev);

	for (unsigned i = 0; i < sg->n; i++)
		pmu__err_append("%s%s", i ? ", " : " (did you mean ", sg->name[i]);
	if (sg->n)
		pmu__err_append("?)");
	if (tracepoint_like(sg->in, sg->len) && *(problem = pmu__tracefs_problem(buf, sizeof(buf))))
		pmu__err_append("; %s", problem);
	else
		pmu__err_append("; pmu list shows the events of this machine");
	return r;
}

int pmu__unknown_pmu(struct pmu__ctx *c, const char *s, size_t len)
{
	struct suggest sg = { .in = s, .len = len };
	struct pmu__shown b;
	char **names;
	size_t n;
	int r;

	if ((r = pmu__pmu_names(&names, &n)) == 0) {
		for (size_t i = 0; i < n; i++)
			suggest_add(&sg, names[i]);
		pmu__names_free(names, n);
	}
	if (r == -ENOMEM)
		return pmu__err(r, "%s: unknown PMU '%s' (out of memory looking for similar names)", c->ev,
				pmu__show(&b, s, len));
	r = pmu__err(-ENOENT, "%s: unknown PMU '%s' (not in %s)", c->ev, pmu__show(&b, s, len),
		     pmu__sysfs_root());
	for (unsigned i = 0; i < sg.n; i++)
		pmu__err_append("%s%s", i ? ", " : "; did you mean ", sg.name[i]);
	if (sg.n)
		pmu__err_append("?");
	return r;
}

int pmu__unknown_term(struct pmu__ctx *c, struct pmu__desc *d, const char *s, size_t len, const char *terms)
{
	struct suggest sg = { .in = s, .len = len };
	bool sw = d->type == PERF_TYPE_SOFTWARE;
	struct pmu__shown b;
	char **names;
	size_t n;
	int r;

	if (pmu__alias_names(d->name, &names, &n) < 0)
		return pmu__err(-ENOMEM, "%s: out of memory listing the events of PMU %s", c->ev, d->name);
	for (size_t i = 0; i < n; i++)
		suggest_add(&sg, names[i]);
	pmu__names_free(names, n);
	for (size_t i = 0; d->core && i < pmu__n_hw_names; i++)
		suggest_add(&sg, pmu__hw_names[i].name);
	for (size_t i = 0; sw && i < pmu__n_sw_names; i++)
		suggest_add(&sg, pmu__sw_names[i].name);
	r = pmu__err(-EINVAL, "%s: unknown term '%s' for PMU %s (its terms: %s", c->ev, pmu__show(&b, s, len),
		     d->name, terms);
	/* perf takes software names alone, not as software/task-clock/ */
	if (sw && sg.n)
		pmu__err_append("; software events are written alone");
	for (unsigned i = 0; i < sg.n; i++)
		pmu__err_append(sw ? "%s%s" : "%s%s/%s/", i ? ", " : "; did you mean ", sw ? sg.name[i] : d->name,
				sg.name[i]);
	if (sg.n)
		pmu__err_append("?");
	/* only hints that list something */
	if (d->type == PERF_TYPE_TRACEPOINT)
		pmu__err_append("; its events are the tracepoints, written SUBSYS:NAME: pmu list tracepoint");
	else if (n || sw)
		pmu__err_append("; its events: pmu list %s/", d->name);
	pmu__err_append(")");
	return r;
}
