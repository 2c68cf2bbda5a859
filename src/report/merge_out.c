/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's output: table, csv, and the json that reads back as
 * an input (merge_in.c). Per region: the totals over the processes and
 * each figure's min, mean and max per process, with the processes of the
 * min and max.
 */
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse/format.h"
#include "output/outfile.h"
#include "output/report_path.h"
#include "report/merge.h"

/* Up to this many processes the table lists them all; past it, those of a min or max. */
#define TABLE_PROCS 16

/* A figure: calls, ns, ns per call, then each common event. */
#define FIG_CALLS 0
#define FIG_NS 1
#define FIG_NPC 2
#define FIG_EV 3

static const char *const stat_names[] = { "total", "min", "mean", "max" };

static const struct spread *fig(const struct merge *m, const struct mregion *r, unsigned k)
{
	return k == FIG_CALLS ? &r->calls : k == FIG_NS ? &r->ns : &r->ev[m->common[k - FIG_EV]];
}

static double npc_mean(const struct mregion *r)
{
	return (double)r->npc.sum / (double)(1u << NPC_SHIFT) / r->nproc;
}

/* Figure k in row s (0 total, 1 min, 2 mean, 3 max) of region r: integers as integers, else one decimal. */
static void put_value(FILE *f, int width, const struct merge *m, const struct mregion *r, unsigned s, unsigned k)
{
	if (k == FIG_NPC) {
		double x = s == 0 ? (r->calls.tot ? (double)r->ns.tot / (double)r->calls.tot : 0) :
			   s == 1 ? r->npc.min : s == 3 ? r->npc.max : npc_mean(r);

		fprintf(f, "%*.1f", width, x);
		return;
	}
	const struct spread *sp = fig(m, r, k);

	if (s == 2)
		fprintf(f, "%*.1f", width, (double)sp->tot / r->nproc);
	else
		fprintf(f, "%*" PRIu64, width, s == 0 ? sp->tot : s == 1 ? sp->min : sp->max);
}

static void table_proc(FILE *f, const struct merge *m, unsigned i)
{
	const struct proc *p = &m->proc[i];
	char e[PMU_ESC_SIZE];

	fprintf(f, "  #%-3u %s: pid %ld on %s", i, pmu__report_esc(e, p->file), p->pid,
		pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, p->hostname));
	fprintf(f, ", started %s: %s\n", pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, p->start),
		pmu__report_esc(e, p->command));
}

/* The processes: each, or (many) their count and those of the min and max of ns. */
static void table_procs(FILE *f, const struct merge *m)
{
	unsigned char *mark;

	if (m->nproc <= TABLE_PROCS) {
		for (unsigned i = 0; i < m->nproc; i++)
			table_proc(f, m, i);
		return;
	}
	fprintf(f, "  (%u processes: those of a min or max below; json lists every one)\n", m->nproc);
	mark = calloc(m->nproc, 1);
	for (unsigned i = 0; mark && i < m->nreg; i++)
		mark[m->reg[i].ns.imin] = mark[m->reg[i].ns.imax] = 1;
	for (unsigned i = 0; mark && i < m->nproc; i++)
		if (mark[i])
			table_proc(f, m, i);
	free(mark);
}

/* The processes whose regions were compensated (pmu_region_compensate()). */
static unsigned comp_procs(const struct merge *m)
{
	unsigned k = 0;

	for (unsigned i = 0; i < m->nproc; i++)
		k += m->proc[i].comp == 1;
	return k;
}

void pmu__merge_table(FILE *f, const struct merge *m, const struct pmu_results *paths)
{
	const char *ev[m->ncommon + 1];
	struct pmu__view v;
	const char *desc;
	char e[PMU_ESC_SIZE];
	int wr = 6, we[m->ncommon ? m->ncommon : 1];

	for (unsigned i = 0; i < m->nreg; i++)
		if ((int)strlen(pmu__report_esc(e, m->reg[i].name)) > wr)
			wr = (int)strlen(e);
	fprintf(f, "libpmu merged report: %u process%s, %u region%s; events:", m->nproc, m->nproc == 1 ? "" : "es",
		m->nreg, m->nreg == 1 ? "" : "s");
	for (unsigned i = 0; i < m->ncommon; i++)
		fprintf(f, "%s %s", i ? "," : "", pmu__report_esc(e, m->ev[m->common[i]]));
	fputc('\n', f);
	table_procs(f, m);
	if (comp_procs(m))
		fprintf(f, "compensated (%u of %u processes): each region leaves out the region calls inside it\n",
			comp_procs(m), m->nproc);
	if (pmu__merge_emulated(m, &desc))
		fprintf(f, "instructions: emulated (%u of %u processes, %s): counted by emulation, not by a PMU\n",
			pmu__merge_emulated(m, &desc), m->nproc, pmu__report_esc(e, desc));
	if (!m->nreg)
		return;
	fprintf(f, "%-*s %5s  %-5s %12s %16s %14s", wr, "region", "procs", "", "calls", "ns", "ns/call");
	for (unsigned i = 0; i < m->ncommon; i++) {
		int len = (int)strlen(pmu__report_esc(e, m->ev[m->common[i]]));

		we[i] = len > 14 ? len : 14;
		fprintf(f, " %*s", we[i], e);
	}
	fputs("  process (of ns)\n", f);
	for (unsigned i = 0; i < m->nreg; i++) {
		const struct mregion *r = &m->reg[i];

		for (unsigned s = 0; s < 4; s++) {
			if (s)
				fprintf(f, "%-*s %5s  %-5s ", wr, "", "", stat_names[s]);
			else
				fprintf(f, "%-*s %5u  %-5s ", wr, pmu__report_esc(e, r->name), r->nproc, stat_names[s]);
			put_value(f, 12, m, r, s, FIG_CALLS);
			fputc(' ', f);
			put_value(f, 16, m, r, s, FIG_NS);
			fputc(' ', f);
			put_value(f, 14, m, r, s, FIG_NPC);
			for (unsigned k = 0; k < m->ncommon; k++) {
				fputc(' ', f);
				put_value(f, we[k], m, r, s, FIG_EV + k);
			}
			if (s == 1 || s == 3)
				fprintf(f, "  #%u", s == 1 ? r->ns.imin : r->ns.imax);
			fputc('\n', f);
		}
	}
	pmu__merge_view(m, &v, ev);
	pmu__dist_table(f, &v);
	if (paths)
		pmu__paths_table(f, paths);
}

/* The csv: per region its total, min, mean and max rows; the distribution's columns on the total's. */
void pmu__merge_csv(FILE *f, const struct merge *m, const struct pmu_results *paths)
{
	const char *ev[m->ncommon + 1];
	uint64_t c[m->ncommon + 1];
	unsigned k[m->ncommon + 1];
	bool dist = false, nested;

	fputs("region,processes,figure,process,calls,ns,ns_per_call", f);
	for (unsigned i = 0; i < m->ncommon; i++) {
		fputc(',', f);
		pmu__report_csv_field(f, ev[i] = m->ev[m->common[i]]);
	}
	for (unsigned i = 0; i < m->nreg; i++)
		dist |= m->reg[i].dist.hproc > 0;
	if (dist)
		pmu__dist_csv_head(f, m->ncommon, ev);
	nested = paths && pmu__paths_nested(paths);
	if (nested)
		pmu__paths_csv_head(f, m->ncommon, ev);
	fputc('\n', f);
	for (unsigned i = 0; i < m->nreg; i++) {
		const struct mregion *r = &m->reg[i];
		struct pmu__vrow row = pmu__merge_row(m, r, c, k), none = { 0 };

		for (unsigned s = 0; s < 4; s++) {
			pmu__report_csv_field(f, r->name);
			fprintf(f, ",%u,%s,", r->nproc, stat_names[s]);
			if (s == 1 || s == 3)
				pmu__report_csv_field(f, m->proc[s == 1 ? r->ns.imin : r->ns.imax].file);
			for (unsigned x = 0; x < FIG_EV + m->ncommon; x++) {
				fputc(',', f);
				put_value(f, 0, m, r, s, x);
			}
			if (dist)
				pmu__dist_csv_cells(f, s ? &none : &row, m->ncommon);
			for (unsigned x = 0; nested && x < 2 + m->ncommon; x++)
				fputc(',', f);
			fputc('\n', f);
		}
	}
	if (nested)	/* figure "path", no processes */
		pmu__paths_csv(f, paths, ",,path,,", 0, dist);
}

/* x as a JSON string of its decimal digits (an exact integer past 2^64). */
static void put_u128(FILE *f, const char *key, unsigned __int128 x)
{
	char digits[48], *p = digits + sizeof(digits) - 1;

	*p = '\0';
	do
		*--p = (char)('0' + (unsigned)(x % 10));
	while ((x /= 10));
	fprintf(f, ", \"%s\": \"%s\"", key, p);
}

static void json_spread(FILE *f, const struct merge *m, const struct mregion *r, unsigned k)
{
	const struct spread *sp = k == FIG_NPC ? NULL : fig(m, r, k);

	fputs("{\"min\": ", f);
	if (sp)
		put_value(f, 0, m, r, 1, k);
	else
		pmu__put_exact(f, r->npc.min);
	fprintf(f, ", \"min_process\": %u, \"mean\": ", sp ? sp->imin : r->npc.imin);
	put_value(f, 0, m, r, 2, k);
	fputs(", \"max\": ", f);
	if (sp)
		put_value(f, 0, m, r, 3, k);
	else
		pmu__put_exact(f, r->npc.max);
	fprintf(f, ", \"max_process\": %u", sp ? sp->imax : r->npc.imax);
	if (!sp)
		put_u128(f, "sum_1024", r->npc.sum);
	else if (!sp->nosq)
		put_u128(f, "sum_sq", sp->sq);
	fputc('}', f);
}

static void json_events(FILE *f, const struct merge *m, const double *x)
{
	fputc('{', f);
	for (unsigned i = 0; i < m->ncommon; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, m->ev[m->common[i]]);
		fprintf(f, ": %.17g", x[m->common[i]]);
	}
	fputc('}', f);
}

static void json_region(FILE *f, const struct merge *m, const struct pmu__view *v, const struct mregion *r)
{
	uint64_t c[m->ncommon + 1];
	unsigned dk[m->ncommon + 1];
	struct pmu__vrow row = pmu__merge_row(m, r, c, dk);

	pmu__json_str(f, r->name);
	fprintf(f, ", \"processes\": %u, \"calls\": %" PRIu64 ", \"ns\": %" PRIu64 ", \"ns_per_call\": %.1f, "
		"\"counts\": {", r->nproc, r->calls.tot, r->ns.tot,
		r->calls.tot ? (double)r->ns.tot / (double)r->calls.tot : 0);
	for (unsigned k = 0; k < m->ncommon; k++) {
		fputs(k ? ", " : "", f);
		pmu__json_str(f, m->ev[m->common[k]]);
		fprintf(f, ": %" PRIu64, fig(m, r, FIG_EV + k)->tot);
	}
	fputs("},\n      \"per_process\": {\"calls\": ", f);
	json_spread(f, m, r, FIG_CALLS);
	fputs(",\n        \"ns\": ", f);
	json_spread(f, m, r, FIG_NS);
	fputs(",\n        \"ns_per_call\": ", f);
	json_spread(f, m, r, FIG_NPC);
	fputs(",\n        \"counts\": {", f);
	for (unsigned k = 0; k < m->ncommon; k++) {
		fputs(k ? ",\n          " : "\n          ", f);
		pmu__json_str(f, m->ev[m->common[k]]);
		fputs(": ", f);
		json_spread(f, m, r, FIG_EV + k);
	}
	fputs("}}", f);
	if (m->mp.n) {
		/* from the merged sums, never an average of the processes' ratios */
		fputs(",\n      \"metrics\": {", f);
		for (unsigned i = 0; i < m->mp.n; i++) {
			double v;

			fputs(i ? ", " : "", f);
			pmu__json_str(f, m->mp.m[i].key);
			fputs(": ", f);
			if (pmu__merge_metric(m, r, i, &v))
				pmu__put_exact(f, v);
			else
				fputs("null", f);
		}
		fputc('}', f);
	}
	if (r->range) {
		fprintf(f, ",\n      \"ns_min\": %.17g, \"ns_max\": %.17g, \"min\": ", r->ns_min, r->ns_max);
		json_events(f, m, r->min);
		fputs(", \"max\": ", f);
		json_events(f, m, r->max);
	}
	pmu__dist_json(f, v, &row);
	fputc('}', f);
}

void pmu__merge_json(FILE *f, const struct merge *m, const struct pmu_results *paths)
{
	const char *ev[m->ncommon + 1];
	struct pmu__view v;

	pmu__merge_view(m, &v, ev);
	fprintf(f, "{\n  \"library\": \"libpmu %s\",\n  \"merged\": %d,\n  \"files\": [", pmu_version(), MERGE_FORMAT);
	for (unsigned i = 0; i < m->nin; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, m->in[i]);
	}
	fputs("],\n  \"processes\": [", f);
	for (unsigned i = 0; i < m->nproc; i++) {
		const struct proc *p = &m->proc[i];

		fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", f);
		pmu__json_str(f, p->file);
		fputs(", \"library\": ", f);
		pmu__json_str(f, p->library);
		fprintf(f, ", \"pid\": %ld, \"hostname\": ", p->pid);
		pmu__json_str(f, p->hostname);
		fputs(", \"command\": ", f);
		pmu__json_str(f, p->command);
		fputs(", \"start\": ", f);
		pmu__json_str(f, p->start);
		fprintf(f, ", \"start_ns\": %" PRIu64 ", \"compensated\": %s", p->start_ns,
			p->comp < 0 ? "null" : p->comp ? "true" : "false");
		if (p->emulated) {	/* as in the process's own report */
			fputs(", \"emulated\": ", f);
			pmu__json_str(f, p->emulated);
		}
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"compensated\": ");	/* null, or the processes compensated (pmu report diff) */
	if (comp_procs(m))
		fprintf(f, "{\"processes\": %u}", comp_procs(m));
	else
		fputs("null", f);
	fputs(",\n  \"events\": [", f);
	for (unsigned i = 0; i < m->ncommon; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, m->ev[m->common[i]]);
	}
	fputs("],\n  \"regions\": [", f);
	for (unsigned i = 0; i < m->nreg; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		json_region(f, m, &v, &m->reg[i]);
	}
	fputs(m->nreg ? "\n  ]" : "]", f);
	if (paths)
		pmu__paths_json(f, paths);
	fputs("\n}\n", f);
}

/* The merged report in the Prometheus text format, or OpenMetrics (om). */
static void merge_prom(FILE *f, const struct merge *m, const struct pmu_results *paths, bool om)
{
	const char *ev[m->ncommon + 1];
	struct pmu__view v;

	pmu__merge_view(m, &v, ev);
	pmu__prom_write(f, &v, om);
	if (paths)
		pmu__paths_prom(f, paths, om);
	pmu__prom_end(f, om);
}

/* The formats a merged report is written in, by their names; from 6 on, of its call paths (report_tree.c). */
static const char *const formats[] = { "table", "csv", "json", "html", "prometheus", "openmetrics", "folded",
				       "hatchet", "json-split" };

int pmu__merge_format(const char *format)
{
	if (!strncmp(format, "folded:", 7))	/* weighed by a figure, checked at the write */
		return 6;
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(format, formats[i]))
			return (int)i;
	return pmu__err(-EINVAL, "%s: unknown report format (table, csv, json, html, prometheus, openmetrics, "
			"folded, hatchet or json-split)", pmu__show(&(struct pmu__shown){ 0 }, format, strlen(format)));
}

/* A format of the call paths (kind k, 6 on): refused when the merge has none, or folded's figure is not counted. */
static int tree_write(FILE *f, const struct pmu_results *paths, int k, const char *format)
{
	int fig;

	if (!paths)
		return pmu__err(-EINVAL, "%s: the merged reports have no call paths (a report written by libpmu "
				"before 0.8 has none)", format);
	if (k == 7)
		pmu__report_hatchet(f, paths);
	else if (k == 8)
		pmu__report_jsonsplit(f, paths);
	else if ((fig = pmu__tree_fig(paths, format)) < 0)
		return fig;
	else
		pmu__report_folded(f, paths, fig);
	return 0;
}

int pmu__merge_write(FILE *f, const struct merge *m, const char *format)
{
	int k = pmu__merge_format(format);
	struct pmu_results *paths;
	locale_t c, old;
	int r = 0;

	if (k < 0)
		return k;
	if (pmu__merge_paths_snap(m, &paths) < 0)
		return -ENOMEM;
	if (!(c = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
		pmu__merge_paths_unsnap(paths);
		return pmu__merge_nomem();
	}
	old = uselocale(c);
	if (k >= 6)
		r = tree_write(f, paths, k, format);
	else if (k == 0)
		pmu__merge_table(f, m, paths);
	else if (k == 1)
		pmu__merge_csv(f, m, paths);
	else if (k == 2)
		pmu__merge_json(f, m, paths);
	else if (k == 3)
		pmu__merge_html(f, m, paths);
	else
		merge_prom(f, m, paths, k == 5);
	uselocale(old);
	freelocale(c);
	pmu__merge_paths_unsnap(paths);
	return r;
}

static int write_fill(FILE *f, void *arg)
{
	void **a = arg;

	return pmu__merge_write(f, a[0], a[1]);
}

int pmu__merge_write_path(const struct merge *m, const char *path, const char *format)
{
	const void *a[2] = { m, NULL };
	int r;

	if (!strcmp(path, "stdout") || !strcmp(path, "stderr") || !strcmp(path, "-")) {
		FILE *f = strcmp(path, "stdout") ? stderr : stdout;

		r = pmu__merge_write(f, m, format ? format : "table");
		return r < 0 ? r : fflush(f) != 0 || ferror(f) ? pmu__err(-EIO, "%s: writing failed", path) : 0;
	}
	if (!format && !(format = pmu__report_format(path)))
		return pmu__out_err(-EINVAL, path);
	if ((r = pmu__merge_format(format)) < 0)
		return r;
	a[1] = format;
	return pmu__out_write(path, write_fill, (void *)a);
}
