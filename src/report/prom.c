/* SPDX-License-Identifier: MIT */
/*
 * A report's view (view.h) in the Prometheus text exposition format 0.0.4,
 * which Prometheus scrapes, node_exporter's textfile collector reads and
 * promtool checks, or in OpenMetrics 1.0 text: counters named without their
 * "_total" suffix and their samples with it, units declared, the process as
 * an info metric, and "# EOF" at the end. Metric names are fixed; every name
 * libpmu did not choose (region, thread, event) is a label value, escaped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "report/report.h"
#include "report/view.h"

void pmu__prom_head(FILE *f, bool om, const char *name, const char *type, const char *unit, const char *help)
{
	const char *tot = !om && !strcmp(type, "counter") ? "_total" : "";

	fprintf(f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, tot, help, name, tot, type);
	if (om && unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
}

/* name[suffix]{region="...",thread="..."[,name="..."][,event="..."] */
static void labels(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r, const char *name,
		   const char *suffix, int ev)
{
	fprintf(f, "%s%s{region=", name, suffix);
	pmu__prom_str(f, r->region);
	if (r->tid < 0) {
		fputs(",thread=\"total\"", f);
	} else {
		fprintf(f, ",thread=\"%ld\",name=", r->tid);
		pmu__prom_str(f, r->tname ? r->tname : "");
	}
	if (ev >= 0) {
		fputs(",event=", f);
		pmu__prom_str(f, v->ev[ev]);
	}
}

void pmu__prom_value(FILE *f, uint64_t x, bool ns)
{
	if (ns)
		fprintf(f, "} %" PRIu64 ".%09" PRIu64 "\n", x / 1000000000, x % 1000000000);
	else
		fprintf(f, "} %" PRIu64 "\n", x);
}

/* A counter family, a sample per row with calls: fig -1 calls, 0 seconds, 1 each event. */
static void counter(FILE *f, const struct pmu__view *v, bool om, const char *name, const char *help, int fig)
{
	VROW_DECL(v, r, buf);

	pmu__prom_head(f, om, name, "counter", fig == 0 ? "seconds" : NULL, help);
	for (unsigned j = 0; j < v->nrow; j++) {
		v->row(v, j, &r, &buf);
		for (int e = fig > 0 ? 0 : -1; r.calls && e < (fig > 0 ? (int)v->nev : 0); e++) {
			labels(f, v, &r, name, "_total", e);
			pmu__prom_value(f, fig < 0 ? r.calls : fig == 0 ? r.ns : r.ev[e], fig == 0);
		}
	}
}

/* Row r's figure i (0 ns, 1 + e event e) in its histograms: its quantiles, sum and count. */
static void summary_of(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r, const char *name, unsigned i)
{
	const struct pmu__shist *h = pmu__vrow_hist(r, i), *h0 = &r->dist[0];
	unsigned k = (unsigned)(h - r->dist);
	uint64_t sum = 0;

	for (unsigned q = 0; q < PMU_DIST_NQ; q++) {
		double x = pmu__vrow_quantile(r, i, pmu__dist_q[q]);

		labels(f, v, r, name, "", (int)i - 1);
		fprintf(f, ",quantile=\"%g\"} %.9g\n", pmu__dist_q[q], i ? x : x / 1e9);
	}
	for (unsigned b = 0; b < h0->len; b++)
		sum += h0->ts[(size_t)k * h0->len + b];
	labels(f, v, r, name, "_sum", (int)i - 1);
	pmu__prom_value(f, sum, !i);
	labels(f, v, r, name, "_count", (int)i - 1);
	pmu__prom_value(f, pmu__shist_total(h0), false);
}

/* The distributions (PMU_HISTOGRAMS) as summaries of each call's seconds, or each event's count per call. */
static void summary(FILE *f, const struct pmu__view *v, bool om, const char *name, const char *help, bool ns)
{
	VROW_DECL(v, r, buf);

	pmu__prom_head(f, om, name, "summary", ns ? "seconds" : NULL, help);
	for (unsigned j = 0; j < v->nrow; j++) {
		v->row(v, j, &r, &buf);
		for (unsigned i = ns ? 0 : 1; pmu__vrow_has_dist(&r) && i <= (ns ? 0 : v->nev); i++)
			if (pmu__vrow_hist(&r, i))
				summary_of(f, v, &r, name, i);
	}
}

static void info(FILE *f, const struct pmu__view *v, bool om)
{
	if (om)
		fputs("# HELP pmu What counted: the library, the process or processes, what emulated instructions.\n"
		      "# TYPE pmu info\npmu_info{library=", f);
	else
		fputs("# HELP pmu_info What counted: the library, the process or processes, what emulated instructions.\n"
		      "# TYPE pmu_info gauge\npmu_info{library=", f);
	pmu__prom_str(f, v->library);
	if (v->pid >= 0)
		fprintf(f, ",pid=\"%ld\"", v->pid);
	fprintf(f, ",processes=\"%u\",emulated=", v->nproc);
	pmu__prom_str(f, v->emulated ? v->emulated : "");
	fputs("} 1\n", f);
}

void pmu__prom_write(FILE *f, const struct pmu__view *v, bool om)
{
	info(f, v, om);
	if (v->refusals) {
		pmu__prom_head(f, om, "pmu_threads_not_counted", "gauge", NULL, "Threads refused their counters (file "
		     "descriptors, memory).");
		fprintf(f, "pmu_threads_not_counted %u\n", v->refused_threads);
		pmu__prom_head(f, om, "pmu_calls_not_counted", "counter", NULL, "Calls of those threads that went uncounted.");
		fprintf(f, "pmu_calls_not_counted_total %" PRIu64 "\n", v->refused_calls);
	}
	counter(f, v, om, "pmu_region_calls", "Calls of the region (outermost, as the report counts them).", -1);
	counter(f, v, om, "pmu_region_seconds", "Time inside the region's calls.", 0);
	if (v->nev)
		counter(f, v, om, "pmu_region_events", "Each event's count inside the region's calls.", 1);
	if (pmu__view_dist_any(v)) {
		summary(f, v, om, "pmu_region_call_seconds", "Each outermost call's time, by quantile (within 0.8%).", true);
		if (v->nev)
			summary(f, v, om, "pmu_region_call_events", "Each event's count per outermost call, by quantile "
				"(within 0.8%).", false);
	}
}

void pmu__prom_end(FILE *f, bool om)
{
	if (om)
		fputs("# EOF\n", f);
}
