/* SPDX-License-Identifier: MIT */
/* The built-in metrics where regions count: see metric_use.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "events/event.h"
#include "parse/expr.h"
#include "metrics/metric_use.h"
#include "events/spellings.h"
#include "events/perf_json.h"
#include "events/sysfs.h"

#define NBUILTIN (pmu__metric_ndefs + pmu__metric_ntopdown)

/* The metrics perf's files offer (PMU_PERF_JSON), before the built-in ones: set once, by files_load(). */
static const struct pmu__metric_def **file_defs;
static unsigned nfile;

/* PMU_PERF_JSON's files read, once, for the first metric name: 0 or -errno with a message naming the path. */
static int files_load(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static bool done;
	static int rc;
	const struct pmu__pj_metric *m;
	size_t n;
	int cs;

	if (!pmu__getenv("PMU_PERF_JSON"))
		return 0;
	cs = pmu__lock(&lock);
	if (!done && (rc = pmu__pj_load()) == 0 && pmu__pj_from_files()) {
		m = pmu__pj_metrics(&n);
		if ((file_defs = calloc(n ? n : 1, sizeof(*file_defs)))) {
			for (size_t i = 0; i < n; i++)
				if (m[i].e)	/* offered, not refused */
					file_defs[nfile++] = &m[i].d;
		} else {
			rc = pmu__err(-ENOMEM, "PMU_PERF_JSON: out of memory");
		}
	}
	done = true;
	pmu__unlock(&lock, cs);
	return rc;
}

static unsigned ndefs(void)
{
	return nfile + NBUILTIN;
}

static const struct pmu__metric_def *def_at(unsigned i)
{
	if (i < nfile)
		return file_defs[i];
	i -= nfile;
	return i < pmu__metric_ndefs ? &pmu__metric_defs[i] : &pmu__metric_topdown[i - pmu__metric_ndefs];
}

const struct pmu__metric_def *pmu__metric_builtin(const char *name)
{
	for (unsigned i = 0; i < ndefs(); i++)
		if (!strcasecmp(def_at(i)->name, name) || (def_at(i)->key && !strcasecmp(def_at(i)->key, name)))
			return def_at(i);
	return NULL;
}

/* What id opens as, into *s: a perf file's event in its terms, else id itself (malloc'd). 0 or -errno. */
static int id_spec(const char *id, char **s)
{
	*s = nfile ? pmu__pj_metric_event(id) : strdup(id);
	if (*s)
		return 0;
	return nfile && errno == EINVAL ? -EINVAL : pmu__err(-ENOMEM, "%s: out of memory", id);
}

/* The machine's literals: #num_cpus, #slots (a core PMU's caps/slots); the others have no value (NaN). */
static int literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	(void)ctx;
	*out = NAN;
	if (lit == PMU_EXPR_NUM_CPUS) {
		*out = (double)sysconf(_SC_NPROCESSORS_ONLN);
	} else if (lit == PMU_EXPR_SLOTS) {
		struct pmu__desc d[PMU_MAX_PMUS];
		char path[PATH_MAX];
		int n = pmu__core_pmus(d);

		for (int i = 0; i < n; i++) {
			long v = pmu__pmu_number(d[i].name, "caps/slots", path, sizeof(path));

			if (v > 0 && isnan(*out))
				*out = (double)v;
			pmu__desc_free(&d[i]);
		}
	}
	return 0;
}

/* For the events alone (an if's constant condition): a literal without a value as 0, as pmu stat does. */
static int any_literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	int rc = literal(ctx, lit, out);

	if (rc == 0 && isnan(*out))
		*out = 0;
	return rc;
}

/* perf's files' metrics may name other metrics of theirs; the built-in ones name events alone */
static const struct pmu__expr_env events_env = { .literal = any_literal };
static const struct pmu__expr_env files_env = { .literal = any_literal, .metric = pmu__pj_metric_ref };

bool pmu__metric_event_is(const char *event, const char *id)
{
	const char *const *l = pmu__spellings(id);
	bool is = pmu__metric_is(event, l ? l : (const char *const[]){ id, NULL });
	char *spec;

	/* a perf file's event opens by its terms, and the set names it so */
	if (!is && nfile && (spec = pmu__pj_metric_event(id))) {
		is = strcmp(spec, id) && !strcmp(event, spec);
		free(spec);
	}
	return is;
}

/* d's expression parsed, and the events it needs: 0 or -errno with a message. */
static int def_events(const struct pmu__metric_def *d, struct pmu__expr **e, const char ***ids, unsigned *n)
{
	int r = pmu__expr_parse(d->expr, e);

	if (r < 0)
		return r;
	r = pmu__expr_events(*e, nfile ? &files_env : &events_env, ids, n);
	if (r < 0) {
		pmu__expr_free(*e);
		*e = NULL;
	}
	return r;
}

/* A ','-separated list in a growing buffer. */
struct list {
	unsigned n;
	char **item;		/* the items, each malloc'd */
};

static int list_add(struct list *l, const char *s, size_t len)
{
	if (pmu__grow(&l->item, l->n, sizeof(*l->item)) < 0 || !(l->item[l->n] = strndup(s, len)))
		return -ENOMEM;
	l->n++;
	return 0;
}

static void list_free(struct list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->item[i]);
	free(l->item);
	memset(l, 0, sizeof(*l));
}

/* The items joined by sep; NULL (with *ok false) when out of memory. */
static char *list_join(const struct list *l, const char *sep, bool *ok)
{
	size_t len = 0;
	char *s;

	for (unsigned i = 0; i < l->n; i++)
		len += strlen(l->item[i]) + strlen(sep);
	s = malloc(len + 1);
	if (!s) {
		*ok = false;
		return NULL;
	}
	s[0] = '\0';
	for (unsigned i = 0, at = 0; i < l->n; i++)
		at += (unsigned)sprintf(s + at, "%s%s", i ? sep : "", l->item[i]);
	return s;
}

static bool list_has(const struct list *l, const char *id, bool as_event)
{
	for (unsigned i = 0; i < l->n; i++)
		if (as_event ? pmu__metric_event_is(l->item[i], id) : !strcasecmp(l->item[i], id))
			return true;
	return false;
}

/* Whether tok[0..len) names no event but a built-in metric (*d) or group (*d NULL). */
static bool metric_name(const char *tok, size_t len, const struct pmu__metric_def **d)
{
	char name[64];
	struct pmu__event ev;
	bool group = false;

	if (len >= sizeof(name) || strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") < len)
		return false;
	memcpy(name, tok, len);
	name[len] = '\0';
	*d = pmu__metric_builtin(name);
	for (unsigned i = 0; !*d && !group && i < ndefs(); i++)
		group = pmu__metric_def_in(def_at(i), name);
	return (*d || group) && pmu__event_parse(tok, len, &ev) < 0;
}

/* Metric d onto named, its events onto out (when not in given or out yet). */
static int add_metric(const struct pmu__metric_def *d, const struct list *given, struct list *out, struct list *named)
{
	struct pmu__expr *e;
	const char **ids;
	unsigned n;
	int r;

	if (list_has(named, d->name, false))
		return 0;
	if ((r = def_events(d, &e, &ids, &n)) < 0)
		return r;
	r = list_add(named, d->name, strlen(d->name));
	for (unsigned i = 0; r == 0 && i < n; i++) {
		char *spec;

		if (!strcmp(ids[i], "duration_time") || list_has(given, ids[i], true) || list_has(out, ids[i], true))
			continue;
		if ((r = id_spec(ids[i], &spec)) == 0)
			r = list_add(out, spec, strlen(spec));
		free(spec);
	}
	free(ids);
	if (r == -EINVAL) {
		pmu__expr_free(e);
		return r;	/* a perf file's event that cannot be written here: said */
	}
	pmu__expr_free(e);
	return r == -ENOMEM ? pmu__err(r, "metric %s: out of memory", d->name) : r;
}

/*
 * Whether this machine names every event of d (and has #slots, where d
 * needs it), what it lacks onto missing, and whether they open together
 * (why not into why, the first time).
 */
static int usable(const struct pmu__metric_def *d, struct list *missing, char *why, size_t size, bool *ok)
{
	struct list evs = { 0 };
	struct pmu__expr *e = NULL;
	struct pmu__event ev;
	struct pmu_set *set;
	const char **ids;
	unsigned n;
	double slots;
	char *spec;
	bool mem = true;
	int r = def_events(d, &e, &ids, &n);

	*ok = r == 0;
	if (r < 0)
		return r;
	for (unsigned i = 0; r == 0 && i < n; i++) {
		char *one;

		if (!strcmp(ids[i], "duration_time"))
			continue;
		if ((r = id_spec(ids[i], &one)) == -ENOMEM)
			break;
		if (r == 0 && pmu__event_parse(one, strlen(one), &ev) == 0) {
			r = list_add(&evs, one, strlen(one));
			free(one);
			continue;
		}
		free(one);
		r = 0;
		*ok = false;
		if (!list_has(missing, ids[i], false))
			r = list_add(missing, ids[i], strlen(ids[i]));
	}
	if (r == 0 && strstr(d->expr, "#slots") && literal(NULL, PMU_EXPR_SLOTS, &slots) == 0 && isnan(slots)) {
		*ok = false;
		if (!list_has(missing, "caps/slots", false))
			r = list_add(missing, "caps/slots", 10);
	}
	/* named is not enough: the metric's events must count here (the generic ones need a PMU) */
	if (r == 0 && *ok && evs.n) {
		spec = list_join(&evs, ",", &mem);
		PMU_OPTS(o, .flags = PMU_SOCKET_WIDE);	/* as every thread's set opens them */

		r = !mem ? -ENOMEM : pmu_open_opts(&set, spec, &o);
		if (r == 0)
			pmu_close(set);
		else if (r != -ENOMEM) {
			if (!*why)
				snprintf(why, size, "%s: %s", d->name, pmu_errmsg());
			*ok = false;
			r = 0;
		}
		free(spec);
	}
	free(ids);
	pmu__expr_free(e);
	list_free(&evs);
	return r == -ENOMEM ? pmu__err(r, "metric %s: out of memory", d->name) : r;
}

/* ": the power PMU's (RAPL)" into buf: whose the missing events are, where known ("" else). */
static const char *missing_pmus(const struct list *missing, char *buf, size_t size)
{
	const char *seen[4];
	unsigned n = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < missing->n && n < 4; i++) {
		const char *p = pmu__metric_id_pmu(missing->item[i]);
		bool dup = false;

		for (unsigned k = 0; k < n; k++)
			dup |= p == seen[k];
		if (!p || dup || len >= size)
			continue;
		seen[n++] = p;
		len += (size_t)snprintf(buf + len, size - len, "%s%s", n > 1 ? " and " : ": they are ", p);
	}
	return buf;
}

/* The metrics of group g this machine can count, else -EOPNOTSUPP naming what it lacks. */
static int add_group(const char *g, const struct list *given, struct list *out, struct list *named)
{
	struct list missing = { 0 };
	unsigned found = 0;
	char *what, why[400] = "", pmus[200];
	bool ok, mem = true;
	int r = 0;

	for (unsigned i = 0; r == 0 && i < ndefs(); i++) {
		if (!pmu__metric_def_in(def_at(i), g))
			continue;
		r = usable(def_at(i), &missing, why, sizeof(why), &ok);
		if (r == 0 && ok) {
			found++;
			r = add_metric(def_at(i), given, out, named);
		}
	}
	if (r == 0 && !found && !missing.n) {
		r = pmu__err(-EOPNOTSUPP, "%s: not supported here: no metric of the group counts here (%s)", g, why);
	} else if (r == 0 && !found) {
		what = list_join(&missing, ", ", &mem);
		r = !mem ? -ENOMEM : pmu__err(-EOPNOTSUPP, "%s: not supported here: the group's metrics need %s, which %s "
					      "does not have%s%s%s", g, what, pmu__sysfs_root(),
					      missing_pmus(&missing, pmus, sizeof(pmus)), *why ? "; " : "", why);
		free(what);
	}
	list_free(&missing);
	return r == -ENOMEM ? pmu__err(r, "%s: out of memory", g) : r;
}

/* tok[0..len) is a metric of perf's files that they offer not here: -EINVAL saying why, else 0. */
static int refused(const char *tok, size_t len)
{
	const struct pmu__pj_metric *m;
	size_t n;

	if (!pmu__getenv("PMU_PERF_JSON") || !pmu__pj_from_files())
		return 0;
	m = pmu__pj_metrics(&n);
	for (size_t i = 0; i < n; i++)
		if (m[i].why && strlen(m[i].d.name) == len && !strncasecmp(m[i].d.name, tok, len))
			return pmu__err(-EINVAL, "%.*s: a metric of %s that cannot be counted here: %s", (int)len, tok,
					m[i].file ? m[i].file : pmu__pj_source(), m[i].why);
	return 0;
}

int pmu__metric_expand(const char *events, char **spec, char **named)
{
	struct list given = { 0 }, out = { 0 }, nm = { 0 };
	const struct pmu__metric_def *d;
	const char *p, *tok;
	bool any = false, mem = true;
	size_t len;
	int r, added = 0;

	*spec = *named = NULL;
	if ((r = files_load()) < 0)
		return r;
	/* the events named, for the metrics' not to repeat them */
	for (p = events; added == 0 && (r = pmu__event_next(&p, &tok, &len)) > 0;)
		if (metric_name(tok, len, &d))
			any = true;
		else if ((added = refused(tok, len)) == 0)
			added = list_add(&given, tok, len);
	/* an empty event: the list as given, for pmu_open() to refuse */
	r = added < 0 ? added : 0;
	any &= r == 0 && p == NULL;
	for (p = events; r == 0 && any && pmu__event_next(&p, &tok, &len) > 0;) {
		if (!metric_name(tok, len, &d)) {
			r = list_add(&out, tok, len);
		} else if (d) {
			r = add_metric(d, &given, &out, &nm);
		} else {
			char g[64];

			snprintf(g, sizeof(g), "%.*s", (int)len, tok);
			r = add_group(g, &given, &out, &nm);
		}
	}
	if (r == 0) {
		*spec = any ? list_join(&out, ",", &mem) : strdup(events);
		*named = any ? list_join(&nm, ",", &mem) : NULL;
		if (!mem || !*spec) {
			free(*spec);
			free(*named);
			*spec = *named = NULL;
			r = -ENOMEM;
		}
	}
	list_free(&given);
	list_free(&out);
	list_free(&nm);
	if (r == -ENOMEM)
		return pmu__err(r, "pmu_thread_init: out of memory");
	return r;
}

void pmu__mplan_free(struct pmu__mplan *p)
{
	for (unsigned i = 0; p->m && i < p->n; i++)
		pmu__expr_free(p->m[i].e);
	free(p->m);
	p->m = NULL;
	p->n = 0;
}

int pmu__mplan_find(const struct pmu__mplan *p, const char *name)
{
	for (unsigned i = 0; i < p->n; i++)
		if (!strcasecmp(p->m[i].key, name) || !strcasecmp(p->m[i].d->name, name))
			return (int)i;
	return -1;
}

/* d onto p when named or (!named) its events are all among events[0..n). */
static int plan_add(struct pmu__mplan *p, const struct pmu__metric_def *d, bool named, const char *const *events,
		    unsigned n)
{
	struct pmu__mshow *m = &p->m[p->n];
	const char **ids, *unit;
	unsigned nid;
	bool all = true;
	int r;

	if (pmu__mplan_find(p, d->name) >= 0)
		return 0;
	if ((r = def_events(d, &m->e, &ids, &nid)) < 0)
		return r;
	for (unsigned i = 0; !named && i < nid; i++) {
		bool has = false;

		for (unsigned k = 0; k < n && !has; k++)
			has = events[k] && pmu__metric_event_is(events[k], ids[i]);
		all &= has;
	}
	free(ids);
	if ((!named && (!all || !nid)) || (r = pmu__metric_scale_unit(d->scale_unit, &m->scale, &unit)) < 0) {
		pmu__expr_free(m->e);
		m->e = NULL;
		return r;
	}
	m->d = d;
	m->key = d->key ? d->key : d->name;
	m->label = d->label ? d->label : d->name;
	p->n++;
	return 0;
}

int pmu__mplan_make(struct pmu__mplan *p, const char *const *events, unsigned n, const char *named)
{
	int r = 0;

	p->n = 0;
	(void)files_load();	/* a failure was said where the metrics were named; the built-in ones stay */
	p->m = calloc(ndefs(), sizeof(*p->m));
	if (!p->m)
		return pmu__err(-ENOMEM, "metrics: out of memory");
	for (const char *s = named; r == 0 && s && *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] == ',')) {
		char name[64];
		const struct pmu__metric_def *d;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(s, ","), s);
		if ((d = pmu__metric_builtin(name)))
			r = plan_add(p, d, true, events, n);
	}
	for (unsigned i = 0; r == 0 && i < ndefs(); i++)
		r = plan_add(p, def_at(i), false, events, n);
	if (r < 0)
		pmu__mplan_free(p);
	return r == -ENOMEM ? pmu__err(r, "metrics: out of memory") : r;
}

struct vctx {
	const char *const *events;
	unsigned n;
	const uint64_t *sums;
	uint64_t ns;
};

static int value(void *ctx, const char *id, bool source_count, double *out)
{
	const struct vctx *c = ctx;

	if (!strcmp(id, "duration_time")) {
		*out = source_count ? 1 : (double)c->ns;
		return 0;
	}
	for (unsigned i = 0; i < c->n; i++)
		if (c->events[i] && pmu__metric_event_is(c->events[i], id)) {
			*out = source_count ? 1 : (double)c->sums[i];
			return 0;
		}
	return -ENOENT;
}

bool pmu__mplan_value(const struct pmu__mplan *p, unsigned i, const char *const *events, unsigned n,
		      const uint64_t *sums, uint64_t ns, double *out)
{
	struct vctx c = { events, n, sums, ns };
	struct pmu__expr_env env = { value, literal, nfile ? pmu__pj_metric_ref : NULL, &c };
	char saved[512];
	bool ok;

	/* an undefined metric is no failure of the caller's: its message stays */
	snprintf(saved, sizeof(saved), "%s", pmu_errmsg());
	ok = pmu__expr_eval(p->m[i].e, &env, out) == 0 && isfinite(*out);
	pmu__err(0, "%s", saved);
	return ok;
}
