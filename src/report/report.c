/* SPDX-License-Identifier: MIT */
/*
 * Region reports: table, csv, json, to a stream (pmu_report) or a named
 * file (pmu_report_path; the names are report_path.c's).
 *
 * A report is formatted from a snapshot of the results (results.c), the
 * same figures pmu_results_take() gives, with names escaped by escape.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/escape.h"
#include "output/outfile.h"
#include "regions/region.h"
#include "regions/trace.h"
#include "output/report_path.h"
#include "report/report.h"
#include "report/view.h"
#include "regions/thread.h"	/* pmu__skipped_next() */
#include "regions/results.h"
#include "events/sysfs.h"
#include "counters/emulated.h"

#define ENT(s, k, id) pmu__results_ent(s, k, id)

/* Threads with calls of region id. */
static unsigned users(const struct pmu_results *s, unsigned id)
{
	unsigned u = 0;

	for (unsigned k = 0; k < s->nthr; k++)
		u += ENT(s, (int)k, id)->calls > 0;
	return u;
}

/* Some event of a region shown ran less than all the time: the table shows running percentages. */
static bool multiplexed(const struct pmu_results *s)
{
	for (size_t j = 0; j < (size_t)(s->nthr + 1) * s->nreg; j++)
		for (unsigned i = 1; s->ent[j].calls && i <= s->n; i++)
			if (s->ent[j].pct[i] < 100.0)
				return true;
	return false;
}

/* Metric i of region id in thread k (-1: total); false when undefined. */
static bool metric(const struct pmu_results *s, int k, unsigned id, unsigned i, double *out)
{
	*out = pmu__results_metric(s, k, id, i);
	return !isnan(*out);
}

/* The table's column of metric i. */
static int metric_width(const struct pmu_results *s, unsigned i)
{
	int len = (int)strlen(s->mp.m[i].label);

	return len > 12 ? len : 12;
}

/* Each byte of a name escaped takes four at most. */
_Static_assert(4 * (PMU_REGION_NAME - 1) < PMU_ESC_SIZE, "a region name escaped fits a table cell");

static void thread_label(char *buf, size_t size, const struct pmu__rthr *t)
{
	char e[PMU_ESC_SIZE];

	snprintf(buf, size, "%d %s", (int)t->tid, pmu__report_esc(e, t->name));
}

/* Column widths of the table; NULL for csv. */
struct widths {
	int region, thread;
	const size_t *ev;
	const size_t *run;	/* running percentage columns, or NULL when none */
};

/*
 * The rows of the table or csv: per region used, its total, then each
 * thread's (in the table only when more than one thread used the region).
 * Columns: calls, ns (csv), ns/call, the events' sums, metrics, ns min, max
 * and stddev per outermost call, then (csv) each event's min, max, stddev
 * and running percentage, or (table, when multiplexed) its running percentage,
 * and (csv, dist) the distributions' cells.
 */
static void report_rows(FILE *f, const struct pmu_results *s, const struct widths *w, bool dist, unsigned blanks)
{
	char lab[96], e[PMU_ESC_SIZE], nm[PMU_ESC_SIZE], why[PMU_ESC_SIZE];

	for (unsigned id = 0; id < s->nreg; id++) {
		const struct pmu__rent *tot = ENT(s, -1, id);
		unsigned u = users(s, id);

		if (!tot->calls)
			continue;
		for (int k = -1; k < (int)s->nthr; k++) {
			const struct pmu__rent *d = ENT(s, k, id);
			double x;

			if (k >= 0 && (!d->calls || (w && u < 2)))
				continue;
			if (w) {
				if (k < 0)
					snprintf(lab, sizeof(lab), "total");
				else
					thread_label(lab, sizeof(lab), &s->thr[k]);
				fprintf(f, "%-*s  %-*s %10" PRIu64 " %14.1f", w->region, k < 0 ? pmu__report_esc(e, s->reg[id]) : "",
					w->thread, lab, d->calls, (double)d->sum[0] / (double)d->calls);
			} else {
				pmu__report_csv_field(f, s->reg[id]);
				if (k < 0) {
					fputs(",total,", f);
				} else {
					fputc(',', f);
					pmu__report_csv_field(f, s->thr[k].name);
					fprintf(f, ",%d", (int)s->thr[k].tid);
				}
				fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.1f", d->calls, d->sum[0],
					(double)d->sum[0] / (double)d->calls);
			}
			for (unsigned i = 0; i < s->n; i++)
				fprintf(f, w ? " %*" PRIu64 : ",%*" PRIu64, w ? (int)w->ev[i] : 0, d->sum[1 + i]);
			for (unsigned i = 0; i < s->mp.n; i++) {
				bool ok = metric(s, k, id, i, &x);

				if (w && ok)
					fprintf(f, " %*.*f", metric_width(s, i), s->mp.m[i].scale > 1 ? 2 : 3,
						x * s->mp.m[i].scale);
				else if (w)
					fprintf(f, " %*s", metric_width(s, i), "-");
				else
					fputc(',', f);
				if (!w && ok)
					pmu__put_exact(f, x);
			}
			fprintf(f, w ? " %12" PRIu64 " %12" PRIu64 " %12.1f" : ",%" PRIu64 ",%" PRIu64 ",%.3f",
				d->min[0], d->max[0], d->sd[0]);
			for (unsigned i = 1; !w && i <= s->n; i++)
				fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.3f,%.2f", d->min[i], d->max[i], d->sd[i], d->pct[i]);
			for (const char *p = s->skipped; !w && (p = pmu__skipped_next(p, nm, sizeof(nm), why, sizeof(why)));)
				fputs(",<not supported>", f);
			if (!w && s->ncomp)
				fprintf(f, ",%" PRIu64, d->clamped);
			if (dist) {
				struct pmu__vrow r = pmu__snap_row(s, k, id);

				pmu__dist_csv_cells(f, &r, s->n);
			}
			for (unsigned i = 0; w && w->run && i < s->n; i++)
				fprintf(f, " %*.2f", (int)w->run[i], d->pct[1 + i]);
			for (unsigned i = 0; i < blanks; i++)	/* csv: the paths' columns */
				fputc(',', f);
			fputc('\n', f);
		}
	}
}

/* The table's note on compensation: the threads, a pair's cost, and each region with calls clamped at 0. */
static void comp_note(FILE *f, const struct pmu_results *s)
{
	char e[PMU_ESC_SIZE];

	if (!s->ncomp)
		return;
	fprintf(f, "compensated (%u of %u threads): each region leaves out the region calls inside it; a pair "
		"costs", s->ncomp, s->nthr);
	for (unsigned h = 0; h < 2; h++) {
		const double *c = s->cost + h * (s->n + 1);

		fprintf(f, "%s %.1f ns", h ? "; by handle," : " by name,", c[0]);
		for (unsigned i = 0; i < s->n; i++)
			fprintf(f, ", %.1f %s", c[1 + i], pmu__report_esc(e, s->ev[i]));
	}
	fputc('\n', f);
	for (unsigned id = 0; id < s->nreg; id++)
		if (ENT(s, -1, id)->clamped)
			fprintf(f, "%s: %" PRIu64 " call%s clamped: a figure came out below 0 and counts 0\n",
				pmu__report_esc(e, s->reg[id]), ENT(s, -1, id)->clamped,
				ENT(s, -1, id)->clamped == 1 ? "" : "s");
}

static void report_table(FILE *f, const struct pmu_results *s)
{
	size_t we[s->n ? s->n : 1], wr[s->n ? s->n : 1];
	struct widths w = { 6, 6, we, multiplexed(s) ? wr : NULL };
	struct pmu__view v;
	unsigned nreg = 0;
	char lab[96], e[PMU_ESC_SIZE], nm[PMU_ESC_SIZE], why[PMU_ESC_SIZE];

	for (unsigned id = 0; id < s->nreg; id++) {
		if (!ENT(s, -1, id)->calls)
			continue;
		nreg++;
		if ((int)strlen(pmu__report_esc(e, s->reg[id])) > w.region)
			w.region = (int)strlen(e);
	}
	for (unsigned k = 0; k < s->nthr; k++) {
		thread_label(lab, sizeof(lab), &s->thr[k]);
		if ((int)strlen(lab) > w.thread)
			w.thread = (int)strlen(lab);
	}
	fprintf(f, "libpmu report: %u region%s, %u thread%s; events:", nreg, nreg == 1 ? "" : "s",
		s->nthr, s->nthr == 1 ? "" : "s");
	for (unsigned i = 0; i < s->n; i++)
		fprintf(f, "%s %s", i ? "," : "", pmu__report_esc(e, s->ev[i]));
	fputc('\n', f);
	for (const char *p = s->skipped; (p = pmu__skipped_next(p, nm, sizeof(nm), why, sizeof(why)));) {
		fprintf(f, "%s <not supported>: ", pmu__report_esc(e, nm));
		fprintf(f, "%s\n", pmu__report_esc(e, why));
	}
	for (unsigned i = 0; i < s->n; i++)
		if (s->units[i].socket)
			fprintf(f, "%s: socket-wide, everything on its socket while a region ran; counts x %.15g = %s\n",
				pmu__report_esc(e, s->ev[i]), s->units[i].scale,
				s->units[i].unit[0] ? s->units[i].unit : "counts");
	for (unsigned i = 0; i < s->n; i++)
		if (s->units[i].emulated)
			fprintf(f, "%s: emulated (%s): counted by emulation, not by a PMU\n", pmu__report_esc(e, s->ev[i]),
				pmu__emulated());
	if (s->refused.threads) {
		char w[256];

		pmu__thr_refusal_words(&s->refused, w, sizeof(w));
		fprintf(f, "not counted: %s (%s)\n", w, pmu__report_esc(e, s->refused.why));
	}
	comp_note(f, s);
	if (!nreg)
		return;
	fprintf(f, "%-*s  %-*s %10s %14s", w.region, "region", w.thread, "thread", "calls", "ns/call");
	for (unsigned i = 0; i < s->n; i++) {
		size_t len = strlen(pmu__report_esc(e, s->ev[i]));

		we[i] = len > 14 ? len : 14;
		fprintf(f, " %*s", (int)we[i], e);
	}
	for (unsigned i = 0; i < s->mp.n; i++)
		fprintf(f, " %*s", metric_width(s, i), s->mp.m[i].label);
	fprintf(f, " %12s %12s %12s", "min ns", "max ns", "stddev ns");
	for (unsigned i = 0; w.run && i < s->n; i++) {
		size_t len = strlen(pmu__report_esc(e, s->ev[i])) + 5;

		wr[i] = len > 8 ? len : 8;
		fprintf(f, " %*s run%%", (int)wr[i] - 5, e);
	}
	fputc('\n', f);
	report_rows(f, s, &w, false, 0);
	pmu__snap_view(s, &v);
	pmu__dist_table(f, &v);
	pmu__paths_table(f, s);
	pmu__cuts_table(f);
}

/* Event i's csv heading: its name, marked when socket-wide or emulated (the table's notes have no place in csv). */
static const char *csv_event(const struct pmu_results *s, unsigned i, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", s->ev[i], s->units[i].socket ? " (socket-wide)" : "",
		 s->units[i].emulated ? " (emulated)" : "");
	return buf;
}

static void report_csv(FILE *f, const struct pmu_results *s)
{
	static const char *const per[] = { "min", "max", "stddev", "running_pct" };
	char col[560], ev[512], nm[PMU_ESC_SIZE], why[PMU_ESC_SIZE], evs[s->n + 1][512];
	const char *evcol[s->n + 1];
	struct pmu__view v;
	unsigned nskip = 0;
	bool dist, paths;

	fputs("region,thread,tid,calls,ns,ns_per_call", f);
	for (unsigned i = 0; i < s->n; i++) {
		fputc(',', f);
		pmu__report_csv_field(f, csv_event(s, i, ev, sizeof(ev)));
	}
	for (unsigned i = 0; i < s->mp.n; i++) {
		fputc(',', f);
		pmu__report_csv_field(f, s->mp.m[i].key);
	}
	fputs(",ns_min,ns_max,ns_stddev", f);
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned j = 0; j < 4; j++) {
			snprintf(col, sizeof(col), "%s(%s)", per[j], csv_event(s, i, ev, sizeof(ev)));
			fputc(',', f);
			pmu__report_csv_field(f, col);
		}
	for (const char *p = s->skipped; (p = pmu__skipped_next(p, nm, sizeof(nm), why, sizeof(why))); nskip++) {
		fputc(',', f);
		pmu__report_csv_field(f, nm);
	}
	fputs(s->ncomp ? ",clamped" : "", f);	/* compensated figures */
	for (unsigned i = 0; i < s->n; i++)
		evcol[i] = csv_event(s, i, evs[i], sizeof(evs[i]));
	pmu__snap_view(s, &v);
	dist = pmu__view_dist_any(&v);	/* csv's distribution columns: once, not per row */
	if (dist)
		pmu__dist_csv_head(f, s->n, evcol);
	paths = pmu__paths_nested(s);
	if (paths)
		pmu__paths_csv_head(f, s->n, evcol);
	fputc('\n', f);
	report_rows(f, s, NULL, dist, paths ? 2 + s->n : 0);
	if (paths)	/* after the regions: the columns between their figures and the path's left empty */
		pmu__paths_csv(f, s, ",path,,", s->mp.n + 3 + 4 * s->n + nskip + (s->ncomp ? 1 : 0), dist);	/* no tid */
}

/* "key": {EVENT: value, ...} */
static void json_per_event(FILE *f, const struct pmu_results *s, const char *key, const uint64_t *u, const double *x,
			   const char *fmt)
{
	fprintf(f, ", \"%s\": {", key);
	for (unsigned i = 0; i < s->n; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, s->ev[i]);
		if (u)
			fprintf(f, ": %" PRIu64, u[1 + i]);
		else
			fprintf(f, fmt, x[1 + i]);
	}
	fputc('}', f);
}

/* Entry k, id's figures; v: the snapshot's view, for its distributions. */
static void json_figures(FILE *f, const struct pmu_results *s, const struct pmu__view *v, int k, unsigned id)
{
	const struct pmu__rent *d = ENT(s, k, id);
	struct pmu__vrow row;
	double x;

	fprintf(f, "\"calls\": %" PRIu64 ", \"spans\": %" PRIu64 ", \"ns\": %" PRIu64 ", \"ns_per_call\": %.1f, "
		"\"ns_min\": %" PRIu64 ", \"ns_max\": %" PRIu64 ", \"ns_stddev\": %.3f",
		d->calls, d->spans, d->sum[0], (double)d->sum[0] / (double)d->calls, d->min[0], d->max[0], d->sd[0]);
	if (s->ncomp)
		fprintf(f, ", \"clamped\": %" PRIu64, d->clamped);
	json_per_event(f, s, "counts", d->sum, NULL, NULL);
	json_per_event(f, s, "min", d->min, NULL, NULL);
	json_per_event(f, s, "max", d->max, NULL, NULL);
	json_per_event(f, s, "stddev", NULL, d->sd, ": %.3f");
	json_per_event(f, s, "running_pct", NULL, d->pct, ": %.2f");
	fputs(", \"metrics\": {", f);
	for (unsigned i = 0; i < s->mp.n; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, s->mp.m[i].key);
		fputs(": ", f);
		if (metric(s, k, id, i, &x))
			pmu__put_exact(f, x);
		else
			fputs("null", f);
	}
	fputc('}', f);
	row = pmu__snap_row(s, k, id);
	pmu__dist_json(f, v, &row);
}

/* The events left out, as "name": "why" members. */
static void json_skipped(FILE *f, const struct pmu_results *s)
{
	char nm[PMU_ESC_SIZE], why[PMU_ESC_SIZE];

	for (const char *p = s->skipped, *q = p; (p = pmu__skipped_next(p, nm, sizeof(nm), why, sizeof(why))); q = p) {
		fputs(q == s->skipped ? "" : ", ", f);
		pmu__json_str(f, nm);
		fputs(": ", f);
		pmu__json_str(f, why);
	}
}

/* null, or {"threads": K, "pair_by_name": {"ns": X, EVENT: X, ...}, "pair_by_handle": {...}} */
static void json_comp(FILE *f, const struct pmu_results *s)
{
	if (!s->ncomp) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"threads\": %u", s->ncomp);
	for (unsigned h = 0; h < 2; h++) {
		const double *c = s->cost + h * (s->n + 1);

		fprintf(f, ", \"pair_by_%s\": {\"ns\": %.1f", h ? "handle" : "name", c[0]);
		for (unsigned i = 0; i < s->n; i++) {
			fputs(", ", f);
			pmu__json_str(f, s->ev[i]);
			fprintf(f, ": %.1f", c[1 + i]);
		}
		fputc('}', f);
	}
	fputc('}', f);
}

/* The report's members before its events: where, what and when it counted. */
static void json_head(FILE *f, const struct pmu_results *s)
{
	char host[256] = "", cmd[4096], when[32] = "";
	struct utsname un;
	struct tm tm;

	if (gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	if (pmu__cmdline(cmd, sizeof(cmd)) < 0)
		cmd[0] = '\0';
	if (gmtime_r(&s->start.tv_sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "{\n  \"library\": \"libpmu %s\",\n  \"pid\": %d,\n  \"hostname\": ", pmu_version(),
		(int)getpid());
	pmu__json_str(f, host);
	fputs(",\n  \"command\": ", f);
	pmu__json_str(f, cmd);
	fputs(",\n  \"kernel\": ", f);	/* what pmu report diff compares before the figures */
	pmu__json_str(f, uname(&un) == 0 ? un.release : "");
	if (pmu__emulated()) {	/* the instructions are QEMU's count */
		fputs(",\n  \"emulated\": ", f);
		pmu__json_str(f, pmu__emulated());
	}
	if (s->refused.threads) {	/* threads refused their set: their calls went uncounted */
		const struct pmu__refusals *n = &s->refused;

		fprintf(f, ",\n  \"not_counted\": {\"threads\": %u, \"counting_again\": %u, \"calls\": %llu, "
			"\"longest_ms\": %llu, \"tids\": [", n->threads, n->again, (unsigned long long)n->calls,
			(unsigned long long)n->longest_ms);
		for (unsigned i = 0; i < n->threads && i < PMU_REFUSED_TIDS; i++)
			fprintf(f, "%s%d", i ? ", " : "", (int)n->tids[i]);
		fputs("], \"why\": ", f);
		pmu__json_str(f, n->why);
		fputc('}', f);
	}
	fprintf(f, ",\n  \"start\": \"%s\",\n  \"start_ns\": %llu,\n  \"events\": [", when,
		(unsigned long long)s->start.tv_sec * 1000000000ull + (unsigned long long)s->start.tv_nsec);
}

static void report_json(FILE *f, const struct pmu_results *s)
{
	struct pmu__view v;
	unsigned nr = 0;

	pmu__snap_view(s, &v);
	json_head(f, s);
	for (unsigned i = 0; i < s->n; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, s->ev[i]);
	}
	fputs("],\n  \"units\": {", f);
	for (unsigned i = 0, k = 0; i < s->n; i++) {
		const struct pmu__evunit *u = &s->units[i];

		if (!u->unit[0] && !u->socket)
			continue;
		fputs(k++ ? ", " : "", f);
		pmu__json_str(f, s->ev[i]);
		fputs(": {\"unit\": ", f);
		pmu__json_str(f, u->unit);
		fprintf(f, ", \"scale\": %.17g, \"socket_wide\": %s}", u->scale, u->socket ? "true" : "false");
	}
	fputs("},\n  \"not_supported\": {", f);
	json_skipped(f, s);
	fputs("},\n  \"compensated\": ", f);	/* since 0.6: null, or the threads compensated and a pair's cost */
	json_comp(f, s);
	fputs(",\n  \"regions\": [", f);
	for (unsigned id = 0; id < s->nreg; id++) {
		const struct pmu__rent *tot = ENT(s, -1, id);
		unsigned nt = 0;

		if (!tot->calls)
			continue;
		fputs(nr++ ? ",\n    {" : "\n    {", f);
		fputs("\"name\": ", f);
		pmu__json_str(f, s->reg[id]);
		fputs(", \"parent\": ", f);	/* since 0.6: the region around its first call, or null */
		if (s->parent[id] >= 0)
			pmu__json_str(f, s->reg[s->parent[id]]);
		else
			fputs("null", f);
		fputs(", ", f);
		json_figures(f, s, &v, -1, id);
		fputs(",\n      \"threads\": [", f);
		for (unsigned k = 0; k < s->nthr; k++) {
			const struct pmu__rent *d = ENT(s, (int)k, id);

			if (!d->calls)
				continue;
			fprintf(f, "%s\n        {\"tid\": %d, \"name\": ", nt++ ? "," : "", (int)s->thr[k].tid);
			pmu__json_str(f, s->thr[k].name);
			fprintf(f, ", \"exited\": %s, ", s->thr[k].exited ? "true" : "false");
			json_figures(f, s, &v, (int)k, id);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs(nr ? "\n  ]" : "]", f);
	pmu__paths_json(f, s);
	pmu__cuts_json(f);
	fputs("\n}\n", f);
}

/*
 * 0 table (NULL too), 1 csv, 2 json, 3 html, 4 trace, 5 prometheus, 6 openmetrics, 7 folded[:FIGURE],
 * 8 hatchet, 9 json-split; else -EINVAL with the message.
 */
static int format_kind(const char *format)
{
	if (!format || !strcmp(format, "table"))
		return 0;
	if (!strcmp(format, "csv"))
		return 1;
	if (!strcmp(format, "json"))
		return 2;
	if (!strcmp(format, "html"))
		return 3;
	if (!strcmp(format, "trace"))
		return 4;
	if (!strcmp(format, "prometheus"))
		return 5;
	if (!strcmp(format, "openmetrics"))
		return 6;
	if (!strncmp(format, "folded", 6) && (!format[6] || format[6] == ':'))
		return 7;
	if (!strcmp(format, "hatchet"))
		return 8;
	if (!strcmp(format, "json-split"))
		return 9;
	return pmu__err(-EINVAL, "%s: unknown report format (use table, csv, json, html, trace, prometheus, "
			"openmetrics, folded, hatchet or json-split)",
			pmu__show(&(struct pmu__shown){ 0 }, format, strlen(format)));
}

/* What a write of a snapshot holds, freed by snap_done() when it ends or a cancel acts in a write. */
struct snap_job {
	struct pmu_results *s;
	locale_t c, old;
	int fig;	/* folded's figure (report_tree.c) */
};

static void snap_done(void *p)
{
	struct snap_job *j = p;

	if (j->c) {
		uselocale(j->old);
		freelocale(j->c);
	}
	pmu__results_clear(j->s);
}

static void snap_kind(FILE *out, struct pmu_results *s, int kind, int fig)
{
	if (kind == 7)
		pmu__report_folded(out, s, fig);
	else if (kind == 8)
		pmu__report_hatchet(out, s);
	else if (kind == 9)
		pmu__report_jsonsplit(out, s);
	else if (kind >= 5)
		pmu__report_prom(out, s, kind == 6);
	else if (kind == 0)
		report_table(out, s);	/* text for people: the program's locale, as perf's */
	else if (kind == 1)
		report_csv(out, s);
	else if (kind == 2)
		report_json(out, s);
	else
		pmu__report_html(out, s);
}

/*
 * Writes the snapshot s as format kind to out, and frees it. A cancel may
 * act in a write to the caller's stream (a pipe nobody reads): the stream
 * then holds a first part of the report, and what the writers hold is freed
 * (snap_done(), and pmu__report_html()'s own).
 */
static int write_snap(FILE *out, struct pmu_results *s, int kind, int fig)
{
	struct snap_job j = { s, (locale_t)0, (locale_t)0, fig };
	int saved = errno;	/* stdio and the C locale may set it on the way (a system without locale files) */

	errno = 0;		/* a failed write's errno, for the message */
	/* For programs: numbers as C writes them, whatever locale the host program set. */
	if (kind != 0 && !(j.c = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
		pmu__results_clear(s);
		return pmu__err(-ENOMEM, "pmu_report: out of memory");
	}
	if (j.c)
		j.old = uselocale(j.c);
	pthread_cleanup_push(snap_done, &j);
	snap_kind(out, s, kind, fig);
	pthread_cleanup_pop(1);
	if (fflush(out) != 0 || ferror(out)) {
		int e = errno ? errno : EIO;

		return pmu__err(-e, "pmu_report: writing the report failed: %s", strerror(e));
	}
	errno = saved;
	return 0;
}

/* The trace of region calls to out: 0, or -errno with the message. */
static int trace_to(FILE *out)
{
	int r = pmu__trace_write(out);

	if (r == 0 && (fflush(out) != 0 || ferror(out)))
		return pmu__err(-EIO, "pmu_report: writing the trace failed: %s", strerror(errno ? errno : EIO));
	return r;
}

/* The figure format kind weighs by (folded's), checked before anything is written: s is freed on an error. */
static int snap_fig(struct pmu_results *s, const char *format, int kind)
{
	int fig = kind == 7 ? pmu__tree_fig(s, format) : 0;

	if (fig < 0)
		pmu__results_clear(s);
	return fig;
}

PMU_API int pmu_report(FILE *out, const char *format)
{
	struct pmu_results s;
	int r, kind;

	if (!out)
		return pmu__err(-EINVAL, "pmu_report: the stream is NULL");
	kind = format_kind(format);
	if (kind < 0)
		return kind;
	if (kind == 4)	/* the timeline (trace.c), not a snapshot */
		return trace_to(out);
	r = pmu__results_fill(&s, "pmu_report");
	if (r < 0 || (r = snap_fig(&s, format, kind)) < 0)
		return r;
	return write_snap(out, &s, kind, r);
}

/* pmu_report_path()'s writer: the snapshot, or the trace (kind 4, s NULL). */
struct path_job {
	struct pmu_results *s;
	int kind, fig;
};

static int path_fill(FILE *f, void *arg)
{
	struct path_job *j = arg;

	return j->kind == 4 ? trace_to(f) : write_snap(f, j->s, j->kind, j->fig);
}

PMU_API int pmu_report_path(const char *path, const char *format)
{
	char name[4096];
	struct pmu_results s;
	struct path_job j = { &s, 0, 0 };
	int r, saved = errno;	/* left as it was on success: the name's lstat may set it */

	if (!path || !*path)
		return pmu__err(-EINVAL, "pmu_report_path: the path is %s", path ? "empty" : "NULL");
	/* The streams' names, as PMU_REPORT takes them ("./stdout" names a file) */
	if (!strcmp(path, "stderr") || !strcmp(path, "-") || !strcmp(path, "stdout"))
		return pmu_report(strcmp(path, "stdout") ? stderr : stdout, format);
	if (!format && !(format = pmu__report_format(path)))
		return pmu__out_err(-EINVAL, path);
	j.kind = format_kind(format);
	if (j.kind < 0)
		return j.kind;
	if (!pmu__report_name(name, sizeof(name), path))
		return pmu__err(-ENAMETOOLONG, "%s: path too long (%zu bytes at most, %%p, %%h and %%r "
				"expanded)", pmu__show(&(struct pmu__shown){ 0 }, path, strlen(path)), sizeof(name) - 1);
	/* The figures first: a failure leaves no file made or written over. */
	r = j.kind == 4 ? 0 : pmu__results_fill(&s, "pmu_report");
	if (r < 0 || (r = j.fig = snap_fig(&s, format, j.kind)) < 0)
		return pmu__out_err(r, name);
	r = pmu__out_write(name, path_fill, &j);
	if (r < 0 && j.kind != 4)
		pmu__results_clear(&s);	/* the file did not open: the snapshot is still here */
	if (r == 0)
		errno = saved;
	return r;
}
