/* SPDX-License-Identifier: MIT */
/*
 * pmu report diff BASE NEW: per region and figure, base, new, the change
 * and, where both inputs keep a spread (per call, or over pmu stat -r's
 * runs), Welch's t-test: its p and the confidence interval of the change.
 * What would make a comparison wrong is said, never hidden: a figure
 * multiplexed on either side, regions or figures on one side only, calls
 * that differ, inputs from other hosts, kernels, library versions or event
 * lists. --fail-if turns it into a CI gate.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmds.h"
#include "diff.h"
#include "layers.h"
#include "tool_err.h"

/* One figure compared: a of base, b of new (either NULL: on one side only). */
struct drow {
	const char *region, *name;
	const struct dfig *a, *b;
	double change;		/* % of base; NAN when base is 0 */
	bool tested, sig, calls_differ;
	bool mwu;		/* tested by Mann-Whitney U (a quantile of histograms): p, no interval */
	bool emulated;		/* instructions emulated on both sides, one run each: exact, but of one run */
	double ps;		/* then: the probability that a new call's ns exceeds a base call's */
	struct welch w;
};

/* A --fail-if threshold: [REGION@]NAME:+X% or -X%. */
struct gate {
	char *region, *name;
	double pct;		/* signed: + an increase past it fails, - a decrease */
	unsigned hits;		/* rows it applied to */
};

struct diff {
	struct dside base, new;
	double alpha;
	unsigned nrow;
	struct drow *row;
	const char **only_base, **only_new;	/* regions on one side only */
	unsigned nob, non;
	char notes[8][256];	/* the inputs' differences */
	unsigned nnotes;
	struct gate *gate;
	unsigned ngate, failed;
};

static const struct dreg *find_reg(const struct dside *d, const char *name)
{
	for (unsigned i = 0; i < d->nreg; i++)
		if (!strcmp(d->reg[i].name, name))
			return &d->reg[i];
	return NULL;
}

static const struct dfig *find_fig(const struct dreg *r, const char *name)
{
	for (unsigned i = 0; r && i < r->nfig; i++)
		if (!strcmp(r->fig[i].name, name))
			return &r->fig[i];
	return NULL;
}

static int add_row(struct diff *df, const struct dreg *ra, const struct dreg *rb, const struct dfig *a,
		   const struct dfig *b)
{
	struct drow *w;

	if (pmu__grow(&df->row, df->nrow, sizeof(*df->row)) < 0)
		return tool_err(-ENOMEM, "out of memory");
	w = &df->row[df->nrow++];
	memset(w, 0, sizeof(*w));
	w->region = ra->name;
	w->name = a ? a->name : b->name;
	w->a = a;
	w->b = b;
	w->calls_differ = ra->calls != rb->calls;
	if (!a || !b)
		return 0;
	w->change = a->s.mean ? (b->s.mean - a->s.mean) / fabs(a->s.mean) * 100 : b->s.mean ? NAN : 0;
	if (!strncmp(w->name, "ns_p", 4) && ra->hist.len && rb->hist.len) {
		/* A quantile: the test is of the distributions, Mann-Whitney U's, which gives no interval. */
		w->w.p = stats_mwu(&ra->hist, &rb->hist, &w->ps);
		w->tested = w->mwu = w->w.p >= 0;
		w->sig = w->tested && w->w.p < df->alpha && w->change != 0;	/* the distribution moved, and this quantile */
		return 0;
	}
	w->tested = a->spread && b->spread && stats_welch(&a->s, &b->s, df->alpha, &w->w);
	w->sig = w->tested && w->w.p < df->alpha;
	/*
	 * An emulated count has no noise of its own, but the program may have
	 * (its allocator, the time, hashing): one run each side shows none of
	 * it, and gets no significance claim. Repeated runs give the spread.
	 */
	w->emulated = !w->tested && df->base.emulated && df->new.emulated &&
		      (!strcmp(w->name, "instructions") || !strcmp(w->name, "instructions:u"));
	return 0;
}

static int note(struct diff *df, const char *what, const char *a, const char *b)
{
	if (df->nnotes < 8 && (a || b) && (!a || !b || strcmp(a, b)))
		snprintf(df->notes[df->nnotes++], sizeof(df->notes[0]), "%s differ: %s (base), %s (new)", what,
			 a ? a : "not given", b ? b : "not given");
	return 0;
}

/* Every region and figure of both sides into rows; the inputs' differences into notes. */
static int compare(struct diff *df)
{
	static const char *const kinds[] = { "a region report", "a merged report", "pmu stat -j" };
	int r = 0;

	if (df->base.kind != df->new.kind)
		note(df, "inputs", kinds[df->base.kind], kinds[df->new.kind]);
	note(df, "library versions", df->base.library, df->new.library);
	note(df, "hosts", df->base.hostname, df->new.hostname);
	note(df, "kernels", df->base.kernel, df->new.kernel);
	note(df, "event lists (user/kernel modifiers too)", df->base.events, df->new.events);
	note(df, "compensated figures (pmu_region_compensate)", df->base.comp, df->new.comp);
	df->only_base = calloc(df->base.nreg + 1, sizeof(char *));
	df->only_new = calloc(df->new.nreg + 1, sizeof(char *));
	if (!df->only_base || !df->only_new)
		return tool_err(-ENOMEM, "out of memory");
	for (unsigned i = 0; r == 0 && i < df->base.nreg; i++) {
		const struct dreg *ra = &df->base.reg[i], *rb = find_reg(&df->new, ra->name);

		if (!rb) {
			df->only_base[df->nob++] = ra->name;
			continue;
		}
		for (unsigned k = 0; r == 0 && k < ra->nfig; k++)
			r = add_row(df, ra, rb, &ra->fig[k], find_fig(rb, ra->fig[k].name));
		for (unsigned k = 0; r == 0 && k < rb->nfig; k++)
			if (!find_fig(ra, rb->fig[k].name))
				r = add_row(df, ra, rb, NULL, &rb->fig[k]);
	}
	for (unsigned i = 0; i < df->new.nreg; i++)
		if (!find_reg(&df->base, df->new.reg[i].name))
			df->only_new[df->non++] = df->new.reg[i].name;
	return r;
}

/* --fail-if's text into g: 0, or -EINVAL with a message. */
static int gate_parse(const char *s, struct gate *g)
{
	const char *colon = strrchr(s, ':'), *at = strchr(s, '@');
	char *end;

	memset(g, 0, sizeof(*g));
	if (!colon || (colon[1] != '+' && colon[1] != '-'))
		return tool_err(-EINVAL, "--fail-if '%s': not [REGION@]NAME:+X%% or NAME:-X%%", s);
	g->pct = strtod(colon + 1, &end);
	if (end == colon + 2 || strcmp(end, "%") || !isfinite(g->pct) || g->pct == 0)
		return tool_err(-EINVAL, "--fail-if '%s': the threshold is not a signed percentage (+2%%, -5%%)", s);
	if (at && at > colon)
		at = NULL;
	g->region = at ? strndup(s, (size_t)(at - s)) : NULL;
	g->name = at ? strndup(at + 1, (size_t)(colon - at - 1)) : strndup(s, (size_t)(colon - s));
	if (!g->name || (at && !g->region))
		return tool_err(-ENOMEM, "out of memory");
	if (!*g->name)
		return tool_err(-EINVAL, "--fail-if '%s': no figure named", s);
	return 0;
}

/* Each threshold over the rows it names: the failures counted, and said on stderr with what was not gated. */
static void gate_apply(struct diff *df)
{
	for (unsigned k = 0; k < df->ngate; k++) {
		struct gate *g = &df->gate[k];

		for (unsigned i = 0; i < df->nrow; i++) {
			const struct drow *w = &df->row[i];
			bool crosses;

			if (strcasecmp(w->name, g->name) || (g->region && strcmp(w->region, g->region)) || !w->a || !w->b)
				continue;
			g->hits++;
			crosses = g->pct > 0 ? w->change > g->pct : w->change < g->pct;
			if (!w->tested)
				fprintf(stderr, "pmu report diff: --fail-if %s:%+g%%: %s in %s: no spread in the inputs, "
					"not gated (change %+.2f%%%s)\n", g->name, g->pct, w->name, w->region, w->change,
					w->emulated ? "; emulated counts are exact, but a program varies from run to "
						      "run: repeat each side, pmu stat -r or merged reports" : "");
			else
				fprintf(stderr, "pmu report diff: %s %s in %s: %+.2f%% (threshold %+g%%, p %.3g%s)\n",
					w->sig && crosses && ++df->failed ? "FAIL" : "pass", w->name, w->region, w->change,
					g->pct, w->w.p, w->sig ? "" : ", not significant");
		}
		if (!g->hits)
			fprintf(stderr, "pmu report diff: --fail-if %s: no figure of that name%s%s in both inputs\n",
				g->name, g->region ? " in region " : "", g->region ? g->region : "");
	}
}

/* ---- output ---- */

enum dfmt { F_TABLE, F_CSV, F_JSON, F_MD, F_HTML };

/* Both sides of w measured over runs that all gave the same value: an exact change (emulated counts). */
static bool exact(const struct drow *w)
{
	return w->a && w->b && w->a->spread && w->b->spread && w->a->s.var == 0 && w->b->s.var == 0 &&
	       w->a->s.n > 1 && w->b->s.n > 1;
}

/* What makes row w's comparison weaker, or exact, ", "-separated into buf ("" for nothing). */
static const char *flags(const struct drow *w, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s%s%s", !w->a ? "only in new, " : "", !w->b ? "only in base, " : "",
		 (w->a && w->a->partial) || (w->b && w->b->partial) ? "multiplexed, " : "",
		 w->calls_differ ? "calls differ, " : "",
		 w->a && w->b && !w->tested && strcmp(w->name, "calls") ? "no spread, " : "",
		 exact(w) ? "exact, " : w->emulated ? "one run each (emulated), " : "", w->mwu ? "Mann-Whitney U, " : "");
	if (*buf)
		buf[strlen(buf) - 2] = '\0';
	return buf;
}

/* The confidence interval of the change, in % of base: false when there is none. */
static bool ci_pct(const struct drow *w, double *lo, double *hi)
{
	double m = w->a ? fabs(w->a->s.mean) : 0;

	if (!w->tested || w->mwu || !m)
		return false;
	*lo = w->w.lo / m * 100;
	*hi = w->w.hi / m * 100;
	return true;
}

/* A figure: whole counts (an exact one's) in all their digits, others in 6. */
static void num_cell(char *buf, size_t size, const struct dfig *f)
{
	if (f && f->s.mean == floor(f->s.mean) && fabs(f->s.mean) < 1e14)
		snprintf(buf, size, "%.0f", f->s.mean);
	else if (f)
		snprintf(buf, size, "%.6g", f->s.mean);
	else
		snprintf(buf, size, "-");
}

/* The cells of row w as text: base, new, change, p, CI. */
static void cells(const struct drow *w, char c[5][48])
{
	double lo, hi;

	num_cell(c[0], 48, w->a);
	num_cell(c[1], 48, w->b);
	if (!w->a || !w->b)
		snprintf(c[2], 48, "-");
	else if (isnan(w->change))
		snprintf(c[2], 48, "from 0");
	else
		snprintf(c[2], 48, "%+.2f%%", w->change);
	if (w->tested)
		snprintf(c[3], 48, "%.3g", w->w.p);
	else
		snprintf(c[3], 48, "-");
	if (ci_pct(w, &lo, &hi))
		snprintf(c[4], 48, "%+.2f%% .. %+.2f%%", lo, hi);
	else
		snprintf(c[4], 48, "-");
}

/* A name for markdown: its table's and emphasis' characters escaped, control bytes as \xHH. */
static void md_str(FILE *f, const char *s)
{
	char buf[PMU_ESC_SIZE];

	for (const char *p = pmu__report_esc(buf, s); *p; p++) {
		if (strchr("|\\`*_[]<>#", *p))
			fputc('\\', f);
		fputc(*p, f);
	}
}

static void write_table(FILE *f, const struct diff *df, bool md)
{
	char c[5][48], fl[128], e1[PMU_ESC_SIZE], e2[PMU_ESC_SIZE];
	int wr = 6, wf = 6;

	for (unsigned i = 0; i < df->nrow; i++) {
		int a = (int)strlen(pmu__report_esc(e1, df->row[i].region)), b = (int)strlen(pmu__report_esc(e2, df->row[i].name));

		wr = a > wr ? a : wr;
		wf = b > wf ? b : wf;
	}
	fprintf(f, md ? "### pmu report diff: " : "pmu report diff: ");
	md ? md_str(f, df->base.path) : pmu__text_str(f, df->base.path);
	fputs(md ? " &rarr; " : " -> ", f);
	md ? md_str(f, df->new.path) : pmu__text_str(f, df->new.path);
	fprintf(f, "%s(a change is significant, %s, where p < %g)\n", md ? "\n\n" : " ", md ? "**bold**" : "*",
		df->alpha);
	for (unsigned i = 0; i < df->nnotes; i++) {
		fputs(md ? "> **note:** " : "note: ", f);
		md ? md_str(f, df->notes[i]) : pmu__text_str(f, df->notes[i]);
		fputs(md ? "\n>\n" : "\n", f);
	}
	if (md)
		fputs("\n| region | figure | base | new | change | p | CI of the change | |\n"
		      "|---|---|---:|---:|---:|---:|---|---|\n", f);
	else
		fprintf(f, "%-*s  %-*s %14s %14s %10s %8s  %-22s %s\n", wr, "region", wf, "figure", "base", "new",
			"change", "p", "CI of the change", "flags");
	for (unsigned i = 0; i < df->nrow; i++) {
		const struct drow *w = &df->row[i];
		const char *sig = w->sig ? (md ? "**" : "*") : "";

		cells(w, c);
		flags(w, fl, sizeof(fl));
		if (md) {
			fputs("| ", f);
			md_str(f, w->region);
			fputs(" | ", f);
			md_str(f, w->name);
			fprintf(f, " | %s | %s | %s%s%s | %s | %s | %s |\n", c[0], c[1], sig, c[2], sig, c[3], c[4], fl);
		} else {
			fprintf(f, "%-*s  %-*s %14s %14s %9s%1s %8s  %-22s %s\n", wr, pmu__report_esc(e1, w->region), wf,
				pmu__report_esc(e2, w->name), c[0], c[1], c[2], sig, c[3], c[4], fl);
		}
	}
	for (int side = 0; side < 2; side++)
		for (unsigned i = 0; i < (side ? df->non : df->nob); i++) {
			fprintf(f, "%sregion only in %s: ", md ? "\n" : "", side ? "new" : "base");
			md ? md_str(f, side ? df->only_new[i] : df->only_base[i]) :
			     pmu__text_str(f, side ? df->only_new[i] : df->only_base[i]);
			fputc('\n', f);
		}
}

static void write_csv(FILE *f, const struct diff *df)
{
	char fl[128];

	fputs("region,figure,base,new,change_pct,p,ci_low_pct,ci_high_pct,significant,flags\n", f);
	for (unsigned i = 0; i < df->nrow; i++) {
		const struct drow *w = &df->row[i];
		double lo = NAN, hi = NAN;

		ci_pct(w, &lo, &hi);
		pmu__report_csv_field(f, w->region);
		fputc(',', f);
		pmu__report_csv_field(f, w->name);
		fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,", w->a ? w->a->s.mean : NAN,
			w->b ? w->b->s.mean : NAN, w->a && w->b ? w->change : NAN, w->tested ? w->w.p : NAN, lo, hi,
			w->sig ? "yes" : "no");
		pmu__report_csv_field(f, flags(w, fl, sizeof(fl)));
		fputc('\n', f);
	}
	for (unsigned i = 0; i < df->nob + df->non; i++) {
		pmu__report_csv_field(f, i < df->nob ? df->only_base[i] : df->only_new[i - df->nob]);
		fprintf(f, ",,,,,,,,no,only in %s\n", i < df->nob ? "base" : "new");
	}
}

/* One page: the notes, the rows (significant ones in bold), the regions on one side only. */
static void write_html(FILE *f, const struct diff *df)
{
	char c[5][48], fl[128];

	pmu__html_head(f, "pmu report diff");
	fputs("<h1>pmu report diff</h1>\n<p class=\"note\">", f);
	pmu__html_str(f, df->base.path);
	fputs(" &rarr; ", f);
	pmu__html_str(f, df->new.path);
	fprintf(f, ": a change is significant (bold) where p &lt; %g</p>\n", df->alpha);
	for (unsigned i = 0; i < df->nnotes; i++) {
		fputs("<p><b>note:</b> ", f);
		pmu__html_str(f, df->notes[i]);
		fputs("</p>\n", f);
	}
	fputs("<table id=\"diff\">\n<tr><th>region</th><th>figure</th><th>base</th><th>new</th><th>change</th>"
	      "<th>p</th><th>CI of the change</th><th>flags</th></tr>\n", f);
	for (unsigned i = 0; i < df->nrow; i++) {
		const struct drow *w = &df->row[i];

		cells(w, c);
		fputs("<tr><td>", f);
		pmu__html_str(f, w->region);
		fputs("</td><td>", f);
		pmu__html_str(f, w->name);
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%s%s%s</td><td>%s</td><td>%s</td><td>", c[0], c[1],
			w->sig ? "<b>" : "", c[2], w->sig ? "</b>" : "", c[3], c[4]);
		pmu__html_str(f, flags(w, fl, sizeof(fl)));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	for (unsigned i = 0; i < df->nob + df->non; i++) {
		fprintf(f, "<p>region only in %s: ", i < df->nob ? "base" : "new");
		pmu__html_str(f, i < df->nob ? df->only_base[i] : df->only_new[i - df->nob]);
		fputs("</p>\n", f);
	}
	pmu__html_tail(f);
}

/* A double in JSON: null when not finite. */
static void jnum(FILE *f, const char *key, double x)
{
	fprintf(f, ", \"%s\": ", key);
	if (isfinite(x))
		pmu__put_exact(f, x);
	else
		fputs("null", f);
}

static void json_side(FILE *f, const char *key, const struct dside *d)
{
	static const char *const kinds[] = { "report", "merged", "stat" };

	fprintf(f, "  \"%s\": {\"file\": ", key);
	pmu__json_str(f, d->path);
	fprintf(f, ", \"kind\": \"%s\", \"library\": ", kinds[d->kind]);
	d->library ? pmu__json_str(f, d->library) : (void)fputs("null", f);
	fputs(", \"hostname\": ", f);
	d->hostname ? pmu__json_str(f, d->hostname) : (void)fputs("null", f);
	fputs(", \"kernel\": ", f);
	d->kernel ? pmu__json_str(f, d->kernel) : (void)fputs("null", f);
	fputs("},\n", f);
}

static void json_row(FILE *f, const struct drow *w)
{
	double lo = NAN, hi = NAN;
	char fl[128];

	fputs("    {\"region\": ", f);
	pmu__json_str(f, w->region);
	fputs(", \"figure\": ", f);
	pmu__json_str(f, w->name);
	jnum(f, "base", w->a ? w->a->s.mean : NAN);
	jnum(f, "new", w->b ? w->b->s.mean : NAN);
	jnum(f, "change_pct", w->a && w->b ? w->change : NAN);
	fprintf(f, ", \"tested\": %s, \"test\": \"%s\"", w->tested ? "true" : "false",
		!w->tested ? "none" : w->mwu ? "mann-whitney-u" : "welch");
	jnum(f, "p", w->tested ? w->w.p : NAN);
	if (w->mwu)
		jnum(f, "p_new_above_base", w->ps);
	ci_pct(w, &lo, &hi);
	jnum(f, "ci_low_pct", lo);
	jnum(f, "ci_high_pct", hi);
	fprintf(f, ", \"significant\": %s, \"flags\": ", w->sig ? "true" : "false");
	pmu__json_str(f, flags(w, fl, sizeof(fl)));
	fputc('}', f);
}

static void write_json(FILE *f, const struct diff *df)
{
	fputs("{\n", f);
	json_side(f, "base", &df->base);
	json_side(f, "new", &df->new);
	fprintf(f, "  \"alpha\": %g,\n  \"notes\": [", df->alpha);
	for (unsigned i = 0; i < df->nnotes; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, df->notes[i]);
	}
	fputs("],\n  \"rows\": [\n", f);
	for (unsigned i = 0; i < df->nrow; i++) {
		json_row(f, &df->row[i]);
		fputs(i + 1 < df->nrow ? ",\n" : "\n", f);
	}
	for (int side = 0; side < 2; side++) {
		fprintf(f, "  ],\n  \"only_in_%s\": [", side ? "new" : "base");
		for (unsigned i = 0; i < (side ? df->non : df->nob); i++) {
			fputs(i ? ", " : "", f);
			pmu__json_str(f, side ? df->only_new[i] : df->only_base[i]);
		}
		if (side)
			fputs("],\n", f);
	}
	fprintf(f, "  \"gate\": {\"thresholds\": %u, \"failed\": %u}\n}\n", df->ngate, df->failed);
}

/* ---- the command ---- */

int diff_usage(FILE *f)
{
	fprintf(f, "usage: pmu report diff [-o FILE] [--format table|csv|json|markdown|html] [--alpha A]\n"
		"                       [--fail-if [REGION@]NAME:(+|-)X%%]... BASE NEW\n"
		"  compares two runs: region reports (json, merged ones too) or pmu stat -j\n"
		"  outputs (-r N: their runs' spread); per region and figure (calls, ns and\n"
		"  each event per call, each metric) base, new, the change, and where both\n"
		"  keep a spread, Welch's t-test: p and the confidence interval of the change;\n"
		"  when regions nest, each call path too (\"path a;b\": calls, ns, self_ns,\n"
		"  each event and its self per call)\n"
		"  --alpha A            significance level (default 0.05: a 95%% interval)\n"
		"  --fail-if SPEC       exit 1 when a significant change of NAME (in REGION)\n"
		"                       passes X%%: instructions:u:+2%% (more), IPC:-5%% (less)\n"
		"  -o, --output FILE    write to FILE (default: standard output)\n"
		"  --format FORMAT      table, csv, json, markdown or html (default: from\n"
		"                       FILE's extension, .csv .json .md .html, else table)\n"
		"  flagged, never compared silently: multiplexed figures, calls that differ,\n"
		"  regions or figures on one side only, other hosts, kernels, library\n"
		"  versions or event lists\n"
		"  exit status: 0, 1 when --fail-if fails, 2 when an input cannot be read\n"
		"  or the output written, 129 for a usage error\n");
	return f == stdout ? 0 : 129;
}

static enum dfmt format_of(const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(s, "csv") || (n > 4 && !strcasecmp(s + n - 4, ".csv")))
		return F_CSV;
	if (!strcmp(s, "json") || (n > 5 && !strcasecmp(s + n - 5, ".json")))
		return F_JSON;
	if (!strcmp(s, "markdown") || (n > 3 && !strcasecmp(s + n - 3, ".md")))
		return F_MD;
	if (!strcmp(s, "html") || (n > 5 && !strcasecmp(s + n - 5, ".html")))
		return F_HTML;
	return F_TABLE;
}

enum { FORMAT = 3001, ALPHA, FAIL_IF };

/* The options into df, *out, *fmt: -1 to go on, or an exit status. */
static int diff_args(struct diff *df, int argc, char **argv, const char **out, int *fmt)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "format", required_argument, NULL, FORMAT },
		{ "alpha", required_argument, NULL, ALPHA }, { "fail-if", required_argument, NULL, FAIL_IF },
		{ "help", no_argument, NULL, 'h' }, { 0 } };
	int c;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		if (c == 'h')
			return diff_usage(stdout);
		if (c == 'o') {
			*out = optarg;
		} else if (c == FORMAT) {
			if ((*fmt = format_of(optarg)) == F_TABLE && strcmp(optarg, "table"))
				return fprintf(stderr, "pmu report diff: --format %s: unknown (table, csv, json, "
					       "markdown or html)\n", optarg), diff_usage(stderr);
		} else if (c == ALPHA) {
			df->alpha = strtod(optarg, &end);
			if (*end || end == optarg || !(df->alpha > 0 && df->alpha < 1))
				return fprintf(stderr, "pmu report diff: --alpha %s: not a level between 0 and 1\n",
					       optarg), diff_usage(stderr);
		} else if (c == FAIL_IF) {
			bool mem = pmu__grow(&df->gate, df->ngate, sizeof(*df->gate)) == 0;

			if (!mem || gate_parse(optarg, &df->gate[df->ngate++]) < 0)
				return fprintf(stderr, "pmu report diff: %s\n", mem ? tool_errmsg() : "out of memory"),
				       mem ? diff_usage(stderr) : 2;
		} else {
			fprintf(stderr, "pmu report diff: %s '%s'\n", c == ':' ? "a value is needed after" :
				"unknown option", argv[optind - 1]);
			return diff_usage(stderr);
		}
	}
	if (argc - optind != 2)
		return fprintf(stderr, "pmu report diff: two inputs, BASE and NEW\n"), diff_usage(stderr);
	if (*fmt < 0)
		*fmt = *out ? format_of(*out) : F_TABLE;
	return -1;
}

static void diff_release(struct diff *df)
{
	diff_free(&df->base);
	diff_free(&df->new);
	for (unsigned i = 0; i < df->ngate; i++) {
		free(df->gate[i].region);
		free(df->gate[i].name);
	}
	free(df->gate);
	free(df->row);
	free(df->only_base);
	free(df->only_new);
}

/* The diff written to out (NULL: standard output): 0, or 2 when it cannot be. */
static int diff_write(const struct diff *df, const char *out, int fmt)
{
	struct pmu__out o = { .dir = -1 };
	FILE *f = stdout;
	int r;

	if (out && (r = pmu__out_open(&o, out, false)) < 0)
		return fprintf(stderr, "pmu report diff: %s\n", pmu_errmsg()), 2;
	f = out ? o.f : stdout;
	if (fmt == F_CSV)
		write_csv(f, df);
	else if (fmt == F_JSON)
		write_json(f, df);
	else if (fmt == F_HTML)
		write_html(f, df);
	else
		write_table(f, df, fmt == F_MD);
	if (out ? (r = pmu__out_close(&o, true)) < 0 : (fflush(f) != 0 || ferror(f)))
		return fprintf(stderr, "pmu report diff: %s: %s\n", out ? out : "standard output",
			       strerror(out ? -r : errno)), 2;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff df = { .alpha = 0.05 };
	const char *out = NULL;
	int fmt = -1, rc = diff_args(&df, argc, argv, &out, &fmt);

	if (rc < 0 && (diff_read(argv[optind], &df.base) < 0 || diff_read(argv[optind + 1], &df.new) < 0)) {
		fprintf(stderr, "pmu report diff: %s\n", tool_errmsg());
		rc = 2;
	}
	if (rc < 0 && compare(&df) < 0) {
		fprintf(stderr, "pmu report diff: %s\n", tool_errmsg());
		rc = 2;
	}
	if (rc < 0) {
		for (unsigned i = 0; i < df.nnotes; i++)
			fprintf(stderr, "pmu report diff: note: %s\n", df.notes[i]);
		gate_apply(&df);
		rc = diff_write(&df, out, fmt);
		rc = rc ? rc : df.failed ? 1 : 0;
	}
	diff_release(&df);
	return rc;
}
