/* SPDX-License-Identifier: MIT */
/*
 * The region report in the Prometheus text exposition format (0.0.4), which
 * Prometheus scrapes, node_exporter's textfile collector reads and promtool
 * checks (pmu_report(f, "prometheus"), PMU_REPORT=NAME.prom). Metric names
 * are fixed; every name libpmu did not choose (region, thread, event) is a
 * label value, escaped. Counters per region and thread ("total" and each
 * thread's ID): calls, seconds, and each event's count.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "base/escape.h"
#include "report/report.h"
#include "regions/results.h"
#include "counters/emulated.h"

/* {region="...",thread="..."[,name="..."] */
static void labels(FILE *f, const struct pmu_results *s, int k, unsigned id)
{
	fputs("{region=", f);
	pmu__prom_str(f, s->reg[id]);
	if (k < 0) {
		fputs(",thread=\"total\"", f);
		return;
	}
	fprintf(f, ",thread=\"%d\",name=", (int)s->thr[k].tid);
	pmu__prom_str(f, s->thr[k].name);
}

/* One sample: name{labels[,event="..."]} and its value, seconds as whole ns. */
static void sample(FILE *f, const char *name, const struct pmu_results *s, int k, unsigned id, int ev, uint64_t v,
		   bool ns)
{
	fputs(name, f);
	labels(f, s, k, id);
	if (ev >= 0) {
		fputs(",event=", f);
		pmu__prom_str(f, s->ev[ev]);
	}
	if (ns)
		fprintf(f, "} %" PRIu64 ".%09" PRIu64 "\n", v / 1000000000, v % 1000000000);
	else
		fprintf(f, "} %" PRIu64 "\n", v);
}

/* One family, its HELP and TYPE, then a sample per region and thread with calls: fig -1 calls, 0 seconds, 1 events. */
static void family(FILE *f, const struct pmu_results *s, const char *name, const char *help, int fig)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
	for (unsigned id = 0; id < s->nreg; id++)
		for (int k = -1; k < (int)s->nthr; k++) {
			const struct pmu__rent *d = pmu__results_ent(s, k, id);

			if (!d->calls)
				continue;
			if (fig < 0)
				sample(f, name, s, k, id, -1, d->calls, false);
			else if (fig == 0)
				sample(f, name, s, k, id, -1, d->sum[0], true);
			for (unsigned i = 0; fig > 0 && i < s->n; i++)
				sample(f, name, s, k, id, (int)i, d->sum[1 + i], false);
		}
}

/*
 * The distributions (PMU_HISTOGRAMS) as summaries: each call's seconds and
 * each event's count per call at p50 ... p99.9, with the sum and count
 * over the calls in the histograms (those since they were switched on).
 */
static void summary(FILE *f, const struct pmu_results *s, const char *name, const char *help, bool ns)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s summary\n", name, help, name);
	for (unsigned id = 0; id < s->nreg; id++)
		for (int k = -1; k < (int)s->nthr; k++) {
			const struct pmu__rent *d = pmu__results_ent(s, k, id);

			for (unsigned i = ns ? 0 : 1; d->dist && i <= (ns ? 0 : s->n); i++) {
				for (unsigned q = 0; q < PMU_DIST_NQ; q++) {
					double v = pmu__dist_quantile(d, i, pmu__dist_q[q]);

					fputs(name, f);
					labels(f, s, k, id);
					if (i) {
						fputs(",event=", f);
						pmu__prom_str(f, s->ev[i - 1]);
					}
					fprintf(f, ",quantile=\"%g\"} %.9g\n", pmu__dist_q[q], ns ? v / 1e9 : v);
				}
				fprintf(f, "%s_sum", name);
				sample(f, "", s, k, id, (int)i - 1, pmu__dist_sum(d, i), ns);
				fprintf(f, "%s_count", name);
				sample(f, "", s, k, id, (int)i - 1, pmu__shist_total(&d->dist[0]), false);
			}
		}
}

void pmu__report_prom(FILE *f, const struct pmu_results *s)
{
	fprintf(f, "# HELP pmu_info The process that counted, its library, and what counted instructions.\n"
		"# TYPE pmu_info gauge\npmu_info{library=\"libpmu %s\",pid=\"%d\",emulated=", pmu_version(), (int)getpid());
	pmu__prom_str(f, pmu__emulated() ? pmu__emulated() : "");
	fputs("} 1\n", f);
	fprintf(f, "# HELP pmu_threads_not_counted Threads refused their counters (file descriptors, memory).\n"
		"# TYPE pmu_threads_not_counted gauge\npmu_threads_not_counted %u\n"
		"# HELP pmu_calls_not_counted_total Calls of those threads that went uncounted.\n"
		"# TYPE pmu_calls_not_counted_total counter\npmu_calls_not_counted_total %llu\n", s->refused.threads,
		(unsigned long long)s->refused.calls);
	family(f, s, "pmu_region_calls_total", "Calls of the region (outermost, as the report counts them).", -1);
	family(f, s, "pmu_region_seconds_total", "Time inside the region's calls.", 0);
	if (s->n)
		family(f, s, "pmu_region_events_total", "Each event's count inside the region's calls.", 1);
	if (!pmu__dist_any(s))
		return;
	summary(f, s, "pmu_region_call_seconds", "Each outermost call's time, by quantile (within 0.8%).", true);
	if (s->n)
		summary(f, s, "pmu_region_call_events", "Each event's count per outermost call, by quantile (within "
			"0.8%).", false);
}
