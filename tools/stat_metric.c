/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -M and --topdown: metric and group names into metrics, their
 * events added to the run (an event already counted is shared; a metric's
 * own events form a group where they fit), and their values from the
 * counts (multiplexed ones scaled, as every count), as perf stat does.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <strings.h>

#include "literals.h"
#include "events/perf_cpu.h"
#include "layers.h"
#include "stat.h"
#include "tool_err.h"

/* Events of one PMU beyond this many are not grouped: a group larger than the counters never counts. */
#define GROUP_MAX 4

/* For the events alone: a literal this machine has no value for (#slots without caps/slots) as 0. */
static int any_literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	int rc = tool_metric_literal(ctx, lit, out);

	if (rc == 0 && isnan(*out))
		*out = 0;
	return rc;
}

static const struct pmu__expr_env events_env = { .literal = any_literal, .metric = pmu__pj_metric_ref };

/* The index of an event named name (or opening as spec) already in the run, or -1. */
static int find_event(const struct stat_run *r, const char *name, const char *spec)
{
	for (unsigned i = 0; i < r->n; i++) {
		const char *s = r->ev[i].spec ? r->ev[i].spec : r->ev[i].name;

		if (!strcmp(r->ev[i].name, name) || !strcmp(s, spec))
			return (int)i;
	}
	return -1;
}

/* Intel's slots (fixed counter 3, not a general one), which must lead its group. */
static bool is_slots(const char *id)
{
	return !strcasecmp(id, "slots") || !strcasecmp(id, "TOPDOWN.SLOTS") || !strcasecmp(id, "cpu/slots/") ||
	       !strcasecmp(id, "cpu_core/slots/");
}

/* Adds what to the ", "-separated list in buf, once. */
static void note_missing(char *buf, size_t size, size_t *len, const char *what)
{
	size_t wl = strlen(what);

	for (const char *p = buf; (p = strstr(p, what)); p += wl)
		if ((p == buf || p[-1] == ' ') && (!p[wl] || p[wl] == ','))
			return;
	if (*len + wl + 3 < size)
		*len += (size_t)snprintf(buf + *len, size - *len, "%s%s", *len ? ", " : "", what);
}

/* Whether m needs #slots and this machine has none (caps/slots missing or 0). */
static bool no_slots(const struct pmu__pj_metric *m)
{
	double slots;

	return strstr(m->d.expr, "#slots") && tool_metric_literal(NULL, PMU_EXPR_SLOTS, &slots) == 0 && isnan(slots);
}

/*
 * What the run's notes say before counting: the metrics that cannot be
 * computed for want of #slots (their events are counted, the figures left
 * blank), and the Arm common events opened by number.
 */
static char noslots[512], bynumber[512];
static size_t noslots_len, bynumber_len;

/* The hardware events a metric added: how many, of which PMU type, and whether of several. */
struct hw_seen {
	unsigned n;
	uint32_t type;
	bool mixed;
};

/* A new entry of r->met for m, with its event ids (taken over); NULL with a message. */
static struct stat_metric *new_metric(struct stat_run *r, const struct pmu__pj_metric *m, const char **ids, unsigned n)
{
	struct stat_metric *k = pmu__grow(&r->met, r->nmet, sizeof(*r->met)) == 0 ? &r->met[r->nmet] : NULL;

	if (k) {
		memset(k, 0, sizeof(*k));
		k->m = m;
		k->ids = ids;
		k->nids = n;
		k->ev = calloc(n ? n : 1, sizeof(*k->ev));
	}
	if (!k || !k->ev) {
		free(ids);
		tool_err(-ENOMEM, "out of memory");
		return NULL;
	}
	r->nmet++;
	return k;
}

/* Event i of metric k onto r->ev (once: an event counted already is shared). 0 or -errno. */
static int metric_event(struct stat_run *r, struct stat_metric *k, unsigned i, struct hw_seen *hw)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	const char *id = k->ids[i];
	char *spec;
	int at, rc = 0;

	if (!strcmp(id, "duration_time")) {
		k->ev[i] = STAT_DURATION;
		return 0;
	}
	spec = pmu__pj_metric_event(id);
	if (!spec)
		return tool_err(-EINVAL, "metric %s: %s", k->m->d.name, pmu_errmsg());
	at = find_event(r, id, spec);
	if (at < 0) {
		rc = stat_event_add(r, id, strcmp(spec, id) ? spec : NULL);
		if (rc == 0 && pmu_event_attr(spec, &attr) == 0 && attr.type != PERF_TYPE_SOFTWARE && !is_slots(id) &&
		    strncasecmp(id, "topdown-", 8)) {
			hw->mixed |= hw->n && attr.type != hw->type;
			hw->type = attr.type;
			hw->n++;
		}
		at = (int)r->n - 1;
	}
	free(spec);
	if (rc < 0)
		return tool_err(rc, "metric %s: %s", k->m->d.name, tool_errmsg());
	if (pmu__pj_arm_common_event(id) >= 0)
		note_missing(bynumber, sizeof(bynumber), &bynumber_len, id);
	k->ev[i] = (unsigned)at;
	return 0;
}

/* Metric m onto r->met, its events onto r->ev. */
static int add_metric(struct stat_run *r, const struct pmu__pj_metric *m)
{
	struct hw_seen hw = { 0 };
	struct stat_metric *k;
	const char **ids;
	unsigned n, first = r->n;
	int rc;

	for (unsigned i = 0; i < r->nmet; i++)
		if (r->met[i].m == m)
			return 0;	/* named twice: once */
	if (m->why)
		return tool_err(-EINVAL, "metric %s: %s", m->d.name, m->why);
	rc = pmu__expr_events(m->e, &events_env, &ids, &n);
	if (rc < 0)
		return tool_err(rc, "metric %s: %s", m->d.name, pmu_errmsg());
	if (!(k = new_metric(r, m, ids, n)))
		return -ENOMEM;
	/* two passes: slots first, as the kernel wants it leading the topdown events' group */
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < n; i++)
			if (is_slots(ids[i]) == (pass == 0) && (rc = metric_event(r, k, i, &hw)) < 0)
				return rc;
	/* its own events together, where they fit: one PMU's, no more than its counters */
	if (!r->metric_no_group && r->n - first > 1 && hw.n <= GROUP_MAX && !hw.mixed)
		for (unsigned i = first; i < r->n; i++) {
			r->ev[i].slot = i - first;
			r->ev[i].gsize = r->n - first;
		}
	/* perf's metric leader: its first event (slots for the topdown ones) */
	k->leader = UINT32_MAX;
	for (unsigned pass = 0; pass < 2 && k->leader == UINT32_MAX; pass++)
		for (unsigned i = 0; i < n && k->leader == UINT32_MAX; i++)
			if (k->ev[i] != STAT_DURATION && is_slots(ids[i]) == (pass == 0))
				k->leader = k->ev[i];
	if (k->leader == UINT32_MAX)
		return tool_err(-EINVAL, "metric %s: it needs no event to count", m->d.name);
	if (no_slots(m))
		note_missing(noslots, sizeof(noslots), &noslots_len, m->d.name);
	return 0;
}

/* Why #slots has no value here, into buf: "is 0x00000000 in DIR", "is not in DIR". */
static const char *slots_why(char *buf, size_t size)
{
	const char *core = pmu__pj_core_pmu();
	char path[PATH_MAX], v[64];

	if (!core) {
		snprintf(buf, size, "has no value: there is no core PMU in %s", pmu__sysfs_root());
		return buf;
	}
	snprintf(path, sizeof(path), "%s/%s/caps/slots", pmu__sysfs_root(), core);
	if (pmu__read_file(path, v, sizeof(v)) < 0)
		snprintf(buf, size, "is not in %s/%s", pmu__sysfs_root(), core);
	else
		snprintf(buf, size, "is %.*s in %s/%s", (int)strcspn(v, "\n"), v, pmu__sysfs_root(), core);
	return buf;
}

/* The notes gathered while adding the metrics, on stderr (as perf's warnings), then forgotten. */
static void print_notes(void)
{
	char why[PATH_MAX + 128];
	bool many;

	if (bynumber_len) {
		many = strchr(bynumber, ',') != NULL;
		fprintf(stderr, "pmu stat: %s: not among %s's events (its PMCEID does not announce %s): opened by %s "
			"Arm architected number%s; a PMU that does not implement %s counts 0\n", bynumber,
			pmu__pj_core_pmu(), many ? "them" : "it", many ? "their" : "its", many ? "s" : "",
			many ? "them" : "it");
	}
	if (noslots_len) {
		many = strchr(noslots, ',') != NULL;
		fprintf(stderr, "pmu stat: %s: not computable here: #slots, the core PMU's caps/slots, %s (the PMU "
			"does not say how many slots a cycle has): %s events are counted, the metric%s left blank\n",
			noslots, slots_why(why, sizeof(why)), many ? "their" : "its", many ? "s" : "");
	}
	noslots[0] = bynumber[0] = '\0';
	noslots_len = bynumber_len = 0;
}

static bool has_core_pmu(void)
{
	struct pmu__desc core[PMU_MAX_PMUS];
	int n = pmu__core_pmus(core);

	for (int i = 0; i < n; i++)
		pmu__desc_free(&core[i]);
	return n != 0;
}

/*
 * Group g's metrics whose events this machine has (a group may hold several
 * architectures' metrics, as TopdownL1), else a refusal naming what it
 * lacks. 0, or -errno with the message; *found: metrics in the group.
 */
/* Whether metric m's event id is a core PMU's: perf's generic hardware names, and the topdown metrics' events. */
static bool core_event(const struct pmu__pj_metric *m, const char *id)
{
	for (size_t i = 0; i < pmu__n_hw_names; i++)
		if (!strcmp(pmu__hw_names[i].name, id))
			return true;
	for (unsigned i = 0; !m->file && i < pmu__metric_ntopdown; i++)
		if (!strcmp(pmu__metric_topdown[i].name, m->d.name))
			return true;
	return false;
}

static int add_group(struct stat_run *r, const char *g, const char *what, unsigned *found)
{
	size_t nm, missing_len = 0;
	const struct pmu__pj_metric *all = pmu__pj_metrics(&nm);
	char missing[1024] = "";
	unsigned usable = 0;
	bool builtin = false, core = false;

	*found = 0;
	for (size_t i = 0; i < nm; i++) {
		const char **ids;
		unsigned n;
		bool ok = true;

		if (all[i].why || !pmu__metric_def_in(&all[i].d, g))
			continue;
		++*found;
		builtin |= !all[i].file;
		if (pmu__expr_events(all[i].e, &events_env, &ids, &n) < 0)
			continue;
		for (unsigned k = 0; k < n; k++) {
			struct perf_event_attr attr = { .size = sizeof(attr) };
			char *spec = strcmp(ids[k], "duration_time") ? pmu__pj_metric_event(ids[k]) : NULL;

			if (spec && pmu_event_attr(spec, &attr) < 0) {
				ok = false;
				core |= core_event(&all[i], ids[k]);
				note_missing(missing, sizeof(missing), &missing_len, ids[k]);
			}
			free(spec);
		}
		free(ids);
		/* without #slots the metric is still counted, left blank (print_notes says why) */
		if (!ok && no_slots(&all[i]))
			note_missing(missing, sizeof(missing), &missing_len, "the core PMU's caps/slots");
		if (ok) {
			int rc = add_metric(r, &all[i]);

			if (rc < 0)
				return rc;
			usable++;
		}
	}
	if (usable || !*found)
		return 0;
	/* the built-in groups hold several architectures' metrics: with no core PMU, their events say nothing */
	if (builtin && core && !has_core_pmu())
		return tool_err(-EOPNOTSUPP, "not supported here: %s: %s counts a core PMU's events, and %s has no "
				"core PMU (no hardware events here)", what, g, pmu__sysfs_root());
	return tool_err(-EOPNOTSUPP, "not supported here: %s: %s needs %s, which %s does not have", what, g, missing,
			pmu__sysfs_root());
}

/* Each name of list: a metric, or the metrics of a group (any case, as perf). */
static int add_list(struct stat_run *r, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : tool_err(-ENOMEM, "out of memory");

	for (char *name = copy ? strtok_r(copy, ",", &save) : NULL; name && rc == 0;
	     name = strtok_r(NULL, ",", &save)) {
		const struct pmu__pj_metric *m = pmu__pj_metric_find(name);
		char what[300];
		unsigned found;

		if (m) {
			rc = add_metric(r, m);
			continue;
		}
		snprintf(what, sizeof(what), "-M %s", name);
		rc = add_group(r, name, what, &found);
		if (rc == 0 && !found)
			rc = tool_err(-EINVAL, "-M %s: no metric or metric group of that name in %s (pmu list metric, "
				      "pmu list metricgroup)", name, pmu__pj_source());
	}
	free(copy);
	return rc;
}

/* --topdown: TopdownL1 where the machine has its events, else a refusal naming what it lacks. */
static int add_topdown(struct stat_run *r)
{
	unsigned found;
	int rc = add_group(r, "TopdownL1", "--topdown", &found);

	if (rc == 0 && !found)
		rc = tool_err(-EOPNOTSUPP, "not supported here: --topdown: no TopdownL1 metric in %s (perf's files for "
			      "this CPU give them: --perf-json PATH)", pmu__pj_source());
	return rc;
}

int stat_metrics_resolve(struct stat_run *r)
{
	int rc;

	if (!r->metrics && !r->topdown)
		return 0;
	tool_metric_system_wide(r->tg.all_cpus && !r->tg.cpus);
	rc = tool_err_lib(pmu__pj_load());
	if (rc == 0 && r->metrics)
		rc = add_list(r, r->metrics);
	if (rc == 0 && r->topdown)
		rc = add_topdown(r);
	if (rc == 0)
		print_notes();
	r->so.met = r->met;
	r->so.nmet = r->nmet;
	return rc;
}

void stat_metrics_free(struct stat_run *r)
{
	for (unsigned i = 0; i < r->nmet; i++) {
		free(r->met[i].ids);
		free(r->met[i].ev);
	}
	free(r->met);
	r->met = NULL;
	r->nmet = 0;
}

struct vctx {
	const struct stat_metric *k;
	const struct ev *ev;
	double elapsed;
	bool missing;
};

static int value(void *ctx, const char *id, bool source_count, double *out)
{
	struct vctx *c = ctx;

	for (unsigned i = 0; i < c->k->nids; i++) {
		const struct ev *e;

		if (strcmp(c->k->ids[i], id))
			continue;
		if (c->k->ev[i] == STAT_DURATION) {
			*out = source_count ? 1 : c->elapsed * 1e9;
			return 0;
		}
		e = &c->ev[c->k->ev[i]];
		if (!e->set || !e->counted) {
			c->missing = true;
			return -ENOENT;
		}
		*out = source_count ? 1 : e->value;
		return 0;
	}
	return -ENOENT;	/* pruned away (an if's other branch): NaN, as perf */
}

bool stat_metric_value(const struct stat_metric *k, const struct ev *ev, double elapsed, double *v)
{
	struct vctx c = { k, ev, elapsed, false };
	struct pmu__expr_env env = { value, tool_metric_literal, pmu__pj_metric_ref, &c };
	const char *unit;
	double scale;

	if (pmu__expr_eval(k->m->e, &env, v) < 0 || c.missing)
		return false;
	if (pmu__metric_scale_unit(k->m->d.scale_unit, &scale, &unit) == 0)
		*v *= scale;
	return true;
}

void stat_metric_label(const struct stat_metric *k, const char **fmt, char *unit, size_t size)
{
	const char *u;
	double scale;

	/* stat-shadow.c's generic_metric: a ScaleUnit gives "%8.1f" and "UNIT  NAME" */
	if (k->m->d.scale_unit && pmu__metric_scale_unit(k->m->d.scale_unit, &scale, &u) == 0) {
		*fmt = "%8.1f";
		snprintf(unit, size, "%s  %s", u, k->m->d.name);
	} else {
		*fmt = "%8.2f";
		snprintf(unit, size, "%s", k->m->d.name);
	}
}
