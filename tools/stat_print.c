/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's figures, as perf stat prints them: its table, -x's fields,
 * --json's objects, each event's metric comment, -I's interval lines and
 * -v's raw readings.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "layers.h"
#include "counters/set_ops.h"	/* pmu__set_event_emulated() */
#include "stat.h"

/* The standard deviation of the mean, as perf stat computes it. */
static double runs_sd(const struct runs *st)
{
	double v = st->n > 1 ? st->m2 / (st->n - 1) / st->n : 0;

	return v > 0 ? sqrt(v) : 0;
}

/* perf stat's "+- x.xx%": the standard deviation of the mean relative to it. */
static double runs_pct(const struct runs *st)
{
	return st->mean ? 100.0 * runs_sd(st) / st->mean : 0;
}

static bool is_clock(const char *name)
{
	return pmu__metric_is(name, pmu__metric_clocks);
}

/* The events that can take part in a metric: those counted, NULL for the others. */
static void counted_names(const struct ev *ev, unsigned n, const char **names)
{
	for (unsigned k = 0; k < n; k++)
		names[k] = ev[k].set && ev[k].counted ? ev[k].name : NULL;
}

struct comment_ctx {
	const char *const *names;	/* the events counted, NULL for the others */
	const struct ev *ev;
	unsigned n;
};

/* An identifier of a comment's expression: the value of the counted event it names. */
static int comment_value(void *ctx, const char *id, bool source_count, double *out)
{
	const struct comment_ctx *c = ctx;
	const char *const *l = pmu__spellings(id);
	int k = pmu__metric_find(c->names, c->n, l ? l : (const char *const[]){ id, NULL });

	if (k < 0)
		return -ENOENT;
	*out = source_count ? 1 : c->ev[k].value;
	return 0;
}

/*
 * The built-in metric with a comment whose first event is event i: perf
 * stat's comment on that line, 0 with *v and *unit set; -ENOENT when none
 * applies (no such metric, an event not counted), -EDOM when it is undefined.
 */
static int comment(const struct ev *ev, unsigned n, unsigned i, const char *const *names, double *v,
		   const char **unit)
{
	struct comment_ctx c = { names, ev, n };
	struct pmu__expr_env env = { .value = comment_value, .ctx = &c };

	for (unsigned k = 0; k < pmu__metric_ndefs; k++) {
		const struct pmu__metric_def *d = &pmu__metric_defs[k];
		struct pmu__expr *e;
		const char *su;
		double scale;
		int r;

		if (!d->comment || pmu__expr_parse(d->expr, &e) < 0)
			continue;
		r = pmu__metric_event_is(ev[i].name, pmu__expr_id(e, 0)) ? pmu__expr_eval(e, &env, v) : -ENOENT;
		pmu__expr_free(e);
		if (r == -ENOENT)
			continue;
		if (r < 0 || !isfinite(*v) || pmu__metric_scale_unit(d->scale_unit, &scale, &su) < 0)
			return -EDOM;
		*v *= scale;
		*unit = d->comment;
		return 0;
	}
	return -ENOENT;
}

/* perf stat's comment for event i: value and unit, false when there is none. */
static bool metric(const struct ev *ev, unsigned n, unsigned i, double elapsed, double *v, const char **unit,
		   char *ubuf, size_t usize)
{
	const struct ev *e = &ev[i];
	const char *names[n];
	double rate;
	int clk, r;

	if (!e->set || !e->counted)
		return false;
	if (is_clock(e->name)) {
		if (elapsed <= 0)
			return false;
		*v = e->value / 1e9 / elapsed;
		*unit = "CPUs utilized";
		return true;
	}
	counted_names(ev, n, names);
	if ((r = comment(ev, n, i, names, v, unit)) != -ENOENT)
		return r == 0;
	clk = pmu__metric_find(names, n, pmu__metric_clocks);
	if (!pmu__metric_rated(e->name) || clk < 0 || !ev[clk].value)
		return false;
	rate = e->value / (ev[clk].value / 1e9);
	snprintf(ubuf, usize, "%s/sec", rate >= 1e9 ? "G" : rate >= 1e6 ? "M" : rate >= 1e3 ? "K" : "");
	*v = rate >= 1e9 ? rate / 1e9 : rate >= 1e6 ? rate / 1e6 : rate >= 1e3 ? rate / 1e3 : rate;
	*unit = ubuf;
	return true;
}

/* perf's print_metric_csv: the value as fmt prints it, blanks and anything after the number left out. */
static const char *csv_value(char *buf, size_t size, const char *fmt, double v)
{
	char *p, *end;

	snprintf(buf, size, fmt, v);
	p = buf + strspn(buf, " ");
	for (end = p; (*end >= '0' && *end <= '9') || *end == '.'; end++)
		;
	*end = '\0';
	return p;
}

/* -M's metrics shown on event i's line (perf stat's metric leader). */
static unsigned metrics_of(const struct stat_opts *so, unsigned i, const struct stat_metric **out)
{
	unsigned n = 0;

	for (unsigned k = 0; k < so->nmet; k++)
		if (so->met[k].leader == i)
			out[n++] = &so->met[k];
	return n;
}

/*
 * The -M metrics after event i's own comment, as perf 6.1's
 * perf_stat__print_shadow_stats: the first on the line when the event had
 * no comment of its own, each other on a line of its own. Returns how many
 * figures the line had (its own comment counted).
 */
static unsigned print_metrics(const struct stat_opts *so, const struct ev *ev, unsigned i, double elapsed,
			      unsigned num)
{
	const struct stat_metric *mine[so->nmet ? so->nmet : 1];
	unsigned nm = metrics_of(so, i, mine);
	FILE *f = so->out;

	for (unsigned k = 0; k < nm; k++) {
		const char *fmt;
		char unit[192], buf[64];
		double v;
		bool ok = stat_metric_value(mine[k], ev, elapsed, &v);

		stat_metric_label(mine[k], &fmt, unit, sizeof(unit));
		if (num++ > 0 && !so->json && !so->sep && !ok) {
			/* perf's print_metric_std: a blank figure stays on the line before */
			fprintf(f, "%-35s", "");
			continue;
		}
		if (num > 1) {
			/* perf's new_line_std, _csv, _json */
			if (so->json)
				fputs("}\n{", f);
			else
				fputc('\n', f);
			if (so->prefix)
				fputs(so->prefix, f);
			if (so->line)
				stat_unit_print(so->line, f, so->sep, so->json);
			if (so->sep) {
				for (unsigned c = 0; c < 3u + (so->line != NULL); c++)
					fputs(so->sep, f);
			} else if (!so->json) {
				if (so->line && so->line->cpu >= 0)	/* -A: perf's AGGR_NONE */
					fprintf(f, "        ");
				fprintf(f, "                                                 ");
			}
		}
		if (so->json) {
			if (!ok)
				fprintf(f, "%s\"metric-value\" : 0.000000, \"metric-unit\" : \"\"", num > 1 ? "" : ", ");
			else
				fprintf(f, "%s\"metric-value\" : %f, \"metric-unit\" : \"%s\"", num > 1 ? "" : ", ", v, unit);
		} else if (so->sep) {
			if (!ok)
				fprintf(f, "%s%s", so->sep, so->sep);
			else
				fprintf(f, "%s%s%s%s", so->sep, csv_value(buf, sizeof(buf), fmt, v), so->sep, unit);
		} else if (!ok) {
			fprintf(f, "%-35s", "");
		} else {
			int w = fprintf(f, " # ");

			w += fprintf(f, fmt, v);
			fprintf(f, " %-*s", 35 - w - 1 > 0 ? 35 - w - 1 : 0, unit);
		}
	}
	return num;
}

/* Event i's line: perf stat's text, -x or --json fields. */
/* perf stat's unit column: as wide as the longest unit of an event that opened, "unit" at least. */
static int unit_width(const struct ev *ev, unsigned n)
{
	size_t w = strlen("unit");

	for (unsigned k = 0; k < n; k++)
		if (ev[k].set && strlen(ev[k].unit) > w)
			w = strlen(ev[k].unit);
	return (int)w;
}

/* The count as perf stat shows it: times the event's scale, with decimals when the scale has a fraction. */
static void count_text(char *buf, size_t size, const struct stat_opts *so, const struct ev *e)
{
	double sc = e->scale > 0 ? e->scale : 1;
	const char *fmt = so->json ? "%f" : floor(sc) != sc ? "%.2f" : "%.0f";

	snprintf(buf, size, fmt, e->value * sc);
}

/* Whether e is counted by emulation (pmu stat --emulate), not by a PMU: the reports say so. */
static bool emulated(const struct ev *e)
{
	return pmu__emulated() && e->set && pmu__set_event_emulated(e->set, e->slot);
}

static void print_event(const struct stat_opts *so, const struct ev *ev, unsigned n, unsigned i, double elapsed)
{
	FILE *f = so->out;
	const struct ev *e = &ev[i];
	const char *unit = e->unit, *munit = "";
	double pct = e->rd.enabled ? 100.0 * (double)e->rd.running / (double)e->rd.enabled : 100.0;
	double mv = 0;
	char val[64], ubuf[16];
	bool has_m = metric(ev, n, i, elapsed, &mv, &munit, ubuf, sizeof(ubuf));
	bool counted = e->set && e->counted;

	if (!e->set)
		snprintf(val, sizeof(val), "<not supported>");
	else if (!e->counted)
		snprintf(val, sizeof(val), "<not counted>");
	else
		count_text(val, sizeof(val), so, e);
	if (so->json)
		fputc('{', f);
	if (so->prefix)
		fputs(so->prefix, f);
	if (so->line)
		stat_unit_print(so->line, f, so->sep, so->json);
	if (so->json) {
		fprintf(f, "\"counter-value\" : \"%s\", \"unit\" : ", val);
		pmu__json_str(f, unit);
		fputs(", \"event\" : ", f);
		pmu__json_str(f, e->name);
		if (so->el.n > 1)	/* perf's variance, and the runs it is of (pmu report diff's t-test) */
			fprintf(f, ", \"variance\" : %.2f, \"runs\" : %u", runs_pct(&e->st), e->st.n);
		if (emulated(e)) {
			fputs(", \"emulated\" : ", f);
			pmu__json_str(f, pmu__emulated());
		}
		fprintf(f, ", \"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f", e->rd.running, pct);
		if (has_m)
			fprintf(f, ", \"metric-value\" : %f, \"metric-unit\" : \"%s\"", mv, munit);
		else if (!counted)	/* as perf stat */
			fprintf(f, ", \"metric-value\" : 0.000000, \"metric-unit\" : \"\"");
		if (counted)
			print_metrics(so, ev, i, elapsed, has_m);
		fprintf(f, "}\n");
	} else if (so->sep) {
		fprintf(f, "%s%s%s%s%s%s", val, so->sep, unit, so->sep, e->name, so->sep);
		if (so->el.n > 1)
			fprintf(f, "%.2f%%%s", runs_pct(&e->st), so->sep);
		fprintf(f, "%" PRIu64 "%s%.2f", e->rd.running, so->sep, pct);
		if (has_m)
			fprintf(f, "%s%.3f%s%s", so->sep, mv, so->sep, munit);
		if ((counted ? print_metrics(so, ev, i, elapsed, has_m) : 0) == 0)
			fprintf(f, "%s%s", so->sep, so->sep);
		fputc('\n', f);
	} else {
		/* perf stat's columns: a name narrower when not counted, a comment of 35 */
		fprintf(f, "%18s %-*s %-*s", val, unit_width(ev, n), unit, counted ? 32 : 25, e->name);
		if (has_m) {
			int w = snprintf(NULL, 0, "%8.3f", mv);

			fprintf(f, " # %8.3f %-*s", mv, w < 31 ? 31 - w : 0, munit);
		}
		if ((counted ? print_metrics(so, ev, i, elapsed, has_m) : 0) == 0)
			fprintf(f, "%*s", 35, "");
		if (so->el.n > 1 && runs_pct(&e->st) != 0)	/* perf leaves out a deviation of 0 */
			fprintf(f, "  ( +-%6.2f%% )", runs_pct(&e->st));
		if (counted && e->rd.running < e->rd.enabled)
			fprintf(f, "  (%.2f%%)", pct);
		fputc('\n', f);
	}
}

/* Event i, a line per unit: CPUs in order, threads by count as perf stat sorts them. */
static void print_units(const struct stat_opts *so, const struct ev *ev, unsigned n, unsigned i, double elapsed)
{
	const struct stat_target *tg = so->tg;
	struct stat_opts o = *so;
	unsigned order[tg->n];
	struct ev view[n];

	for (unsigned u = 0; u < tg->n; u++) {
		unsigned k = u;

		/* stable, highest first */
		for (; k > 0 && tg->per_thread && ev[i].per[order[k - 1]].rd.value < ev[i].per[u].rd.value; k--)
			order[k] = order[k - 1];
		order[k] = u;
	}
	for (unsigned u = 0; u < tg->n; u++) {
		if (tg->kind == STAT_CPUS && ev[i].set && !ev[i].per[order[u]].set)
			continue;	/* a per-CPU PMU's event, on the CPUs of its mask alone */
		memcpy(view, ev, sizeof(view));
		for (unsigned k = 0; k < n; k++) {
			view[k].rd = ev[k].per[order[u]].rd;
			view[k].value = ev[k].per[order[u]].value;
			view[k].counted = ev[k].per[order[u]].counted;
		}
		o.line = &tg->u[order[u]];
		print_event(&o, view, n, i, elapsed);
	}
}

/* Every event's lines: their sums, or a line per unit. */
static void print_events(const struct stat_opts *so, const struct ev *ev, unsigned n, double elapsed)
{
	for (unsigned i = 0; i < n; i++)
		if (stat_target_lines(so->tg))
			print_units(so, ev, n, i, elapsed);
		else
			print_event(so, ev, n, i, elapsed);
}

/* A figure of --metric-only: its unit (the column's heading), format and value (ok: computed). */
struct mo_item {
	char unit[256];
	const char *fmt;
	double v;
	bool ok;
};

/* Event i's figures, as perf's print_metric_only keeps them: not the rates nor CPUs utilized. */
static unsigned mo_items(const struct stat_opts *so, const struct ev *ev, unsigned n, unsigned i, double elapsed,
			 struct mo_item *it)
{
	const struct stat_metric *mine[so->nmet ? so->nmet : 1];
	unsigned nm = metrics_of(so, i, mine), c = 0;
	const char *munit = "";
	char ubuf[16];
	double mv;

	if (metric(ev, n, i, elapsed, &mv, &munit, ubuf, sizeof(ubuf)) && !strstr(munit, "/sec") &&
	    !strstr(munit, "CPUs utilized")) {
		if (!strncmp(munit, "of all", 6))	/* perf's fixunit */
			snprintf(it[c].unit, sizeof(it[c].unit), "%s %s", ev[i].name, munit);
		else
			snprintf(it[c].unit, sizeof(it[c].unit), "%s", munit);
		it[c].fmt = "%8.3f";
		it[c].v = mv;
		it[c++].ok = true;
	}
	for (unsigned k = 0; k < nm; k++, c++) {
		stat_metric_label(mine[k], &it[c].fmt, it[c].unit, sizeof(it[c].unit));
		it[c].ok = ev[i].set && ev[i].counted && stat_metric_value(mine[k], ev, elapsed, &it[c].v);
	}
	return c;
}

/* --metric-only: a heading per figure, then their values, in perf 6.1's columns (20 wide), -x or --json. */
static void print_metric_only(const struct stat_opts *so, const struct ev *ev, unsigned n, double elapsed)
{
	struct mo_item it[so->nmet + 1];
	FILE *f = so->out;
	bool first = true;
	char buf[64];

	if (so->json)
		fputc('{', f);
	for (unsigned i = 0; i < n; i++) {
		unsigned c = mo_items(so, ev, n, i, elapsed, it);

		for (unsigned k = 0; k < c; k++) {
			if (so->json) {
				fprintf(f, "%s\"unit\" : ", first ? "" : ", ");
				pmu__json_str(f, it[k].unit);
			} else if (so->sep)
				fprintf(f, "%s%s", it[k].unit, so->sep);
			else
				fprintf(f, "%*s ", 20, it[k].unit);
			first = false;
		}
	}
	fprintf(f, so->json ? "}\n" : "\n");
	for (unsigned i = 0; i < n; i++) {
		unsigned c = mo_items(so, ev, n, i, elapsed, it);

		for (unsigned k = 0; k < c; k++) {
			int mlen = strlen(it[k].unit) > 20 ? (int)strlen(it[k].unit) + 1 : 20;
			const char *v = it[k].ok ? csv_value(buf, sizeof(buf), it[k].fmt, it[k].v) : "";

			if (so->json)
				fprintf(f, "{\"metric-value\" : \"%s\"}", v);
			else if (so->sep)
				fprintf(f, "%s%s", v, so->sep);
			else {
				if (it[k].ok)
					snprintf(buf, sizeof(buf), it[k].fmt, it[k].v);
				fprintf(f, "%*s ", mlen, it[k].ok ? buf : "");
			}
		}
	}
	fputc('\n', f);
}

void stat_print(const struct stat_opts *so, const struct ev *ev, unsigned n, char **cmd, double elapsed,
		const struct rusage *ru)
{
	const struct runs *el = &so->el;
	bool table = !so->sep && !so->json;
	FILE *f = so->out;

	if (table) {
		fprintf(f, "\n Performance counter stats for ");
		stat_target_header(so->tg, cmd, f);
		if (el->n > 1)
			fprintf(f, " (%u runs):\n\n", el->n);
		else
			fprintf(f, ":\n\n");
	}
	if (so->metric_only)
		print_metric_only(so, ev, n, elapsed);
	else
		print_events(so, ev, n, elapsed);
	if (!table)
		return;
	for (unsigned i = 0; i < n; i++)
		if (emulated(&ev[i]))
			fprintf(f, "\n %s: emulated (%s): counted by emulation, not by a PMU\n", ev[i].name, pmu__emulated());
	if (el->n > 1) {
		double sd = runs_sd(el), p = sd;
		int prec = 2;

		/* perf stat: two digits more than the deviation's first significant one */
		while (p > 0 && p < 1 && prec < 11) {
			p *= 10;
			prec++;
		}
		fprintf(f, "\n %17.*f +- %.*f seconds time elapsed  ( +-%6.2f%% )\n\n", prec, el->mean, prec, sd,
			runs_pct(el));
		return;
	}
	fprintf(f, "\n %17.9f seconds time elapsed\n\n", elapsed);
	if (so->tg && so->tg->kind != STAT_CMD)	/* the times of a command only */
		return;
	fprintf(f, " %17.9f seconds user\n", (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6);
	fprintf(f, " %17.9f seconds sys\n\n\n", (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
}

/* perf stat's interval header: the time, then the unit's column when there is one. */
static void print_interval_header(const struct stat_opts *so, int uwidth)
{
	const char *col = !stat_target_lines(so->tg) ? "             counts" :
			  so->tg->kind == STAT_CPUS ? " CPU                    counts" :
			  "             comm-pid                  counts";

	fprintf(so->out, "#           time%s %*s events\n", col, uwidth, "unit");
}

void stat_print_interval(struct stat_run *r, double t)
{
	struct stat_opts so = r->so;
	unsigned long sec = (unsigned long)t, ns = (unsigned long)((t - (double)sec) * 1e9);
	char prefix[64];

	if (so.json)
		snprintf(prefix, sizeof(prefix), "\"interval\" : %lu.%09lu, ", sec, ns);
	else
		snprintf(prefix, sizeof(prefix), "%6lu.%09lu%s", sec, ns, so.sep ? so.sep : " ");
	so.prefix = prefix;
	/* perf stat repeats the table's header every 25 intervals */
	if (!so.sep && !so.json && r->intervals++ % 25 == 0)
		print_interval_header(&so, unit_width(r->ev, r->n));
	/* rates over the interval asked for, as perf stat's, the last partial one too */
	print_events(&so, r->ev, r->n, r->interval / 1e3);
	fflush(so.out);
}

void stat_print_verbose(const struct ev *e)
{
	const char *why = "";
	int user;

	if (!e->set) {
		fprintf(stderr, "%s: <not supported> (%s)\n", e->name, e->why ? e->why : "");
		return;
	}
	user = pmu_user_read(e->set, e->slot, &why);
	fprintf(stderr, "%s: %" PRIu64 " %" PRIu64 " %" PRIu64 " (%s: %s)\n", e->name, e->rd.value, e->rd.enabled,
		e->rd.running, user > 0 ? "user-space read" : "read(2)", why);
}

void stat_report(const struct stat_run *r)
{
	if (!r->interval)	/* -I printed every interval, and perf stat no total */
		stat_print(&r->so, r->ev, r->n, r->cmd, r->elapsed, &r->ru);
	for (unsigned i = 0; i < r->n; i++)
		if (r->ev[i].why)
			fprintf(stderr, "pmu stat: %s\n", r->ev[i].why);
	if (r->user_only)
		fprintf(stderr, "pmu stat: counting user space only: the kernel refused kernel counting "
			"(kernel.perf_event_paranoid); add :u to the events to say so, or lower it\n");
}
