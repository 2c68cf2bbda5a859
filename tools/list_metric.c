/* SPDX-License-Identifier: MIT */
/* pmu list metric and metricgroup: the metrics offered, built in or from perf's files, and why others are refused. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "cmds.h"
#include "events/perf_json.h"
#include "tool_err.h"

static int by_str(const void *a, const void *b)
{
	return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/* pmu list metric and metricgroup: the metrics offered (and why others are refused), or their groups. */
/* "in %", "in GHz", "in insn per cycle, x 1000": perf's ScaleUnit in words. */
static void print_unit(const char *su)
{
	const char *unit;
	double scale;

	if (!su || !*su || pmu__metric_scale_unit(su, &scale, &unit) < 0)
		return;
	if (!strcmp(unit, "%") && scale == 100)
		printf("  (in %%)");
	else if (scale == 1)
		printf("  (in %s)", unit);
	else
		printf("  (in %s, scaled by %g)", unit, scale);
}

/* Every group name of the metrics offered, once, in name order, into *out: the count, or -1. */
static long group_names(const struct pmu__pj_metric *m, size_t n, const char ***out)
{
	const char **g = NULL;
	size_t ng = 0;

	for (size_t i = 0; i < n; i++)
		for (const char *p = m[i].d.groups; p && *p;) {
			size_t len = strcspn(p, ";"), k = 0;

			while (k < ng && !(strlen(g[k]) == len && !strncasecmp(g[k], p, len)))
				k++;
			if (k == ng && len && !m[i].why) {
				if (pmu__grow(&g, ng, sizeof(*g)) < 0 || !(g[ng] = strndup(p, len))) {
					while (ng--)
						free((char *)g[ng]);
					free(g);
					return -1;
				}
				ng++;
			}
			p += len + (p[len] == ';');
		}
	qsort(g, ng, sizeof(*g), by_str);
	*out = g;
	return (long)ng;
}

/* pmu list metricgroup: each group with its metrics. */
static int list_groups(const struct pmu__pj_metric *m, size_t n, bool json)
{
	const char **g;
	long ng = group_names(m, n, &g);

	if (ng < 0) {
		fprintf(stderr, "pmu list: out of memory\n");
		return 1;
	}
	if (json)
		printf("{\n  \"source\": "), pmu__json_str(stdout, pmu__pj_source()), printf(",\n  \"metricgroups\": [");
	else
		printf("metric groups (%s):\n", pmu__pj_source());
	for (long k = 0; k < ng; k++) {
		unsigned c = 0;

		if (json) {
			printf("%s\n    {\"group\": ", k ? "," : "");
			pmu__json_str(stdout, g[k]);
			printf(", \"metrics\": [");
		} else
			printf("  %s:", g[k]);
		for (size_t i = 0; i < n; i++)
			if (!m[i].why && pmu__metric_def_in(&m[i].d, g[k])) {
				if (json) {
					printf("%s", c ? ", " : "");
					pmu__json_str(stdout, m[i].d.name);
				} else
					printf(" %s", m[i].d.name);
				c++;
			}
		printf(json ? "]}" : "\n");
		free((char *)g[k]);
	}
	free(g);
	if (json)
		printf("\n  ]\n}\n");
	return 0;
}

/* One metric as a json object: its fields that are set. */
static void metric_json(const struct pmu__pj_metric *t)
{
	const char *keys[] = { "groups", "scale_unit", "description", "refused" };
	const char *vals[] = { t->d.groups, t->d.scale_unit, t->d.desc, t->why };

	printf("{\"metric\": ");
	pmu__json_str(stdout, t->d.name);
	printf(", \"expr\": ");
	pmu__json_str(stdout, t->d.expr ? t->d.expr : "");
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (vals[k]) {
			printf(", \"%s\": ", keys[k]);
			pmu__json_str(stdout, vals[k]);
		}
	putchar('}');
}

/* One metric as text: name, groups, description, then its expression and unit. */
static void metric_text(const struct pmu__pj_metric *t)
{
	if (t->why) {
		printf("  %-40s refused: %s\n", t->d.name, t->why);
		return;
	}
	printf("  %-40s", t->d.name);
	if (t->d.groups && *t->d.groups)
		printf(" [%s]", t->d.groups);
	if (t->d.desc && *t->d.desc)
		printf(" %s", t->d.desc);
	/* the expression as people write it: perf's escapes ("branch\-misses") left out */
	fputs("\n      = ", stdout);
	for (const char *c = t->d.expr; *c; c++) {
		if (*c == '\\' && c[1])
			c++;
		putchar(*c);
	}
	print_unit(t->d.scale_unit);
	putchar('\n');
}

int list_metrics(bool groups, bool json)
{
	const struct pmu__pj_metric *m;
	size_t n, refused = 0;

	if (pmu__pj_load() < 0) {
		fprintf(stderr, "pmu list: %s\n", pmu_errmsg());
		return 1;
	}
	m = pmu__pj_metrics(&n);
	if (groups)
		return list_groups(m, n, json);
	if (json)
		printf("{\n  \"source\": "), pmu__json_str(stdout, pmu__pj_source()), printf(",\n  \"metrics\": [");
	else
		printf("metrics (%s):\n", pmu__pj_source());
	for (size_t i = 0; i < n; i++) {
		refused += m[i].why != NULL;
		if (json) {
			printf("%s\n    ", i ? "," : "");
			metric_json(&m[i]);
		} else {
			metric_text(&m[i]);
		}
	}
	if (json)
		printf("\n  ],\n  \"offered\": %zu,\n  \"refused\": %zu\n}\n", n - refused, refused);
	else
		printf("\n%zu metrics: %zu offered, %zu refused\n", n, n - refused, refused);
	return 0;
}
