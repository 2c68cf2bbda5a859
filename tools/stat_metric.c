/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -M and --topdown: metric and group names into metrics, their
 * events added to the run (an event already counted is shared; a metric's
 * own events form a group where they fit), and their values from the
 * counts (multiplexed ones scaled, as every count), as perf stat does.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "private.h"
#include "stat.h"
#include "tool_err.h"

/* Events of one PMU beyond this many are not grouped: a group larger than the counters never counts. */
#define GROUP_MAX 4

static const struct pmu__expr_env lit_env = { .literal = tool_metric_literal, .metric = tool_metric_ref };

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

/* Metric m onto r->met, its events onto r->ev. */
static int add_metric(struct stat_run *r, const struct tool_metric *m)
{
	struct stat_metric *k, *met;
	const char **ids;
	unsigned n, first, hw = 0;
	uint32_t hwtype = 0;
	bool mixed = false;
	int rc;

	for (unsigned i = 0; i < r->nmet; i++)
		if (r->met[i].m == m)
			return 0;	/* named twice: once */
	if (m->why)
		return tool_err(-EINVAL, "metric %s: %s", m->d.name, m->why);
	rc = pmu__expr_events(m->e, &lit_env, &ids, &n);
	if (rc < 0)
		return tool_err(rc, "metric %s: %s", m->d.name, pmu_errmsg());
	met = realloc(r->met, (r->nmet + 1) * sizeof(*met));
	if (!met) {
		free(ids);
		return tool_err(-ENOMEM, "out of memory");
	}
	r->met = met;
	k = &met[r->nmet];
	memset(k, 0, sizeof(*k));
	k->m = m;
	k->ids = ids;
	k->nids = n;
	k->ev = calloc(n ? n : 1, sizeof(*k->ev));
	if (!k->ev) {
		free(ids);
		return tool_err(-ENOMEM, "out of memory");
	}
	r->nmet++;
	first = r->n;
	for (unsigned i = 0; i < n; i++) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		char *spec;
		int at;

		if (!strcmp(ids[i], "duration_time")) {
			k->ev[i] = STAT_DURATION;
			continue;
		}
		spec = tool_metric_event(ids[i]);
		if (!spec)
			return tool_err(-EINVAL, "metric %s: %s", m->d.name, tool_errmsg());
		at = find_event(r, ids[i], spec);
		if (at < 0) {
			rc = stat_event_add(r, ids[i], strcmp(spec, ids[i]) ? spec : NULL);
			if (rc == 0 && pmu_event_attr(spec, &attr) == 0 && attr.type != PERF_TYPE_SOFTWARE) {
				mixed |= hw && attr.type != hwtype;
				hwtype = attr.type;
				hw++;
			}
			at = (int)r->n - 1;
		}
		free(spec);
		if (rc < 0)
			return tool_err(rc, "metric %s: %s", m->d.name, tool_errmsg());
		k->ev[i] = (unsigned)at;
	}
	/* its own events together, where they fit: one PMU's, no more than its counters */
	if (!r->metric_no_group && r->n - first > 1 && hw <= GROUP_MAX && !mixed)
		for (unsigned i = first; i < r->n; i++) {
			r->ev[i].slot = i - first;
			r->ev[i].gsize = r->n - first;
		}
	k->leader = UINT32_MAX;
	for (unsigned i = 0; i < n; i++)
		if (k->ev[i] != STAT_DURATION && (k->leader == UINT32_MAX || k->ev[i] < k->leader))
			k->leader = k->ev[i];
	if (k->leader == UINT32_MAX)
		return tool_err(-EINVAL, "metric %s: it needs no event to count", m->d.name);
	return 0;
}

/* Each name of list: a metric, or every metric of a group (any case, as perf). */
static int add_list(struct stat_run *r, const char *list)
{
	size_t nm;
	const struct tool_metric *all = tool_metrics(&nm);
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : tool_err(-ENOMEM, "out of memory");

	for (char *name = copy ? strtok_r(copy, ",", &save) : NULL; name && rc == 0;
	     name = strtok_r(NULL, ",", &save)) {
		const struct tool_metric *m = tool_metric_find(name);
		unsigned found = 0;

		if (m) {
			rc = add_metric(r, m);
			continue;
		}
		for (size_t i = 0; i < nm && rc == 0; i++)
			if (pmu__metric_def_in(&all[i].d, name) && !all[i].why && ++found)
				rc = add_metric(r, &all[i]);
		if (rc == 0 && !found)
			rc = tool_err(-EINVAL, "-M %s: no metric or metric group of that name in %s (pmu list metric, "
				      "pmu list metricgroup)", name, tool_metrics_source());
	}
	free(copy);
	return rc;
}

/*
 * --topdown: TopdownL1's metrics whose events this machine has, else a
 * refusal naming what it lacks.
 */
static int add_topdown(struct stat_run *r)
{
	size_t nm, missing_len = 0;
	const struct tool_metric *all = tool_metrics(&nm);
	char missing[1024] = "";
	unsigned usable = 0, seen = 0;

	for (size_t i = 0; i < nm; i++) {
		const char **ids;
		unsigned n;
		bool ok = true;

		if (all[i].why || !pmu__metric_def_in(&all[i].d, "TopdownL1"))
			continue;
		seen++;
		if (pmu__expr_events(all[i].e, &lit_env, &ids, &n) < 0)
			continue;
		for (unsigned k = 0; k < n; k++) {
			struct perf_event_attr attr = { .size = sizeof(attr) };
			char *spec = strcmp(ids[k], "duration_time") ? tool_metric_event(ids[k]) : NULL;

			if (spec && pmu_event_attr(spec, &attr) < 0) {
				ok = false;
				if (!strstr(missing, ids[k]) && missing_len + strlen(ids[k]) + 3 < sizeof(missing))
					missing_len += (size_t)snprintf(missing + missing_len, sizeof(missing) - missing_len,
									"%s%s", missing_len ? ", " : "", ids[k]);
			}
			free(spec);
		}
		free(ids);
		if (ok) {
			int rc = add_metric(r, &all[i]);

			if (rc < 0)
				return rc;
			usable++;
		}
	}
	if (usable)
		return 0;
	if (!seen)
		return tool_err(-EOPNOTSUPP, "not supported here: --topdown: no TopdownL1 metric in %s (perf's files "
				"for this CPU give them: --perf-json PATH)", tool_metrics_source());
	return tool_err(-EOPNOTSUPP, "not supported here: --topdown: TopdownL1 needs %s, which %s does not have",
			missing, pmu__sysfs_root());
}

int stat_metrics_resolve(struct stat_run *r)
{
	int rc;

	if (!r->metrics && !r->topdown)
		return 0;
	rc = tool_metrics_load();
	if (rc == 0 && r->metrics)
		rc = add_list(r, r->metrics);
	if (rc == 0 && r->topdown)
		rc = add_topdown(r);
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
	struct pmu__expr_env env = { value, tool_metric_literal, tool_metric_ref, &c };
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
