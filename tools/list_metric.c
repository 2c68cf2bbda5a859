/* SPDX-License-Identifier: MIT */
/* pmu list metric and metricgroup: the metrics offered, built in or from perf's files, and why others are refused. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "cmds.h"
#include "perf_json.h"
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

int list_metrics(bool groups, bool json)
{
	const struct tool_metric *m;
	size_t n, refused = 0, ng = 0;
	const char **g = NULL;
	int r = tool_metrics_load();

	if (r < 0) {
		fprintf(stderr, "pmu list: %s\n", tool_errmsg());
		return 1;
	}
	m = tool_metrics(&n);
	if (groups) {
		/* every group name once, in name order */
		for (size_t i = 0; i < n; i++)
			for (const char *p = m[i].d.groups; p && *p;) {
				size_t len = strcspn(p, ";"), k = 0;

				while (k < ng && !(strlen(g[k]) == len && !strncasecmp(g[k], p, len)))
					k++;
				if (k == ng && len && !m[i].why) {
					const char **ng2 = realloc(g, (ng + 1) * sizeof(*g));

					if (!ng2 || !(ng2[ng] = strndup(p, len))) {
						fprintf(stderr, "pmu list: out of memory\n");
						free(ng2 ? ng2 : g);
						return 1;
					}
					g = ng2;
					ng++;
				}
				p += len + (p[len] == ';');
			}
		qsort(g, ng, sizeof(*g), by_str);
		if (json)
			printf("{\n  \"source\": "), pmu__json_str(stdout, tool_metrics_source()), printf(",\n  \"metricgroups\": [");
		else
			printf("metric groups (%s):\n", tool_metrics_source());
		for (size_t k = 0; k < ng; k++) {
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
	if (json)
		printf("{\n  \"source\": "), pmu__json_str(stdout, tool_metrics_source()), printf(",\n  \"metrics\": [");
	else
		printf("metrics (%s):\n", tool_metrics_source());
	for (size_t i = 0; i < n; i++) {
		const struct tool_metric *t = &m[i];

		refused += t->why != NULL;
		if (json) {
			printf("%s\n    {\"metric\": ", i ? "," : "");
			pmu__json_str(stdout, t->d.name);
			printf(", \"expr\": ");
			pmu__json_str(stdout, t->d.expr ? t->d.expr : "");
			if (t->d.groups) {
				printf(", \"groups\": ");
				pmu__json_str(stdout, t->d.groups);
			}
			if (t->d.scale_unit) {
				printf(", \"scale_unit\": ");
				pmu__json_str(stdout, t->d.scale_unit);
			}
			if (t->d.desc) {
				printf(", \"description\": ");
				pmu__json_str(stdout, t->d.desc);
			}
			if (t->why) {
				printf(", \"refused\": ");
				pmu__json_str(stdout, t->why);
			}
			putchar('}');
			continue;
		}
		if (t->why) {
			printf("  %-40s refused: %s\n", t->d.name, t->why);
			continue;
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
	if (json)
		printf("\n  ],\n  \"offered\": %zu,\n  \"refused\": %zu\n}\n", n - refused, refused);
	else
		printf("\n%zu metrics: %zu offered, %zu refused\n", n, n - refused, refused);
	return 0;
}
