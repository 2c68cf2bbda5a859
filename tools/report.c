/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge: one view of the json region reports of many processes
 * (the ranks of an MPI job, runs on many hosts): per region the totals over
 * the processes and each figure's spread across them (min, mean, max, and
 * which process had the min and the max).
 *
 * Every file is read and checked (json.c) before anything is written. Files
 * with different event lists merge on the events they all have, with a note
 * naming each one left out and the files that lack it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "private.h"
#include "report_read.h"
#include "report.h"
#include "cmds.h"

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu report merge [-o FILE] [--format table|csv|json] REPORT.json...\n"
		"  merges the json region reports of many processes (pmu_report_path(3),\n"
		"  PMU_REPORT=run-%%h-%%r.json): per region, the totals over the processes and\n"
		"  the spread across them: min, mean and max per process, and which process\n"
		"  had the min and the max\n"
		"  -o, --output FILE    write to FILE (default: standard output)\n"
		"  --format FORMAT      table, csv or json (default: from FILE's extension,\n"
		"                       .csv or .json, else table)\n"
		"  reports with different events merge on the events common to all, with a\n"
		"  note naming the others; none in common, a process given twice, another\n"
		"  major version of libpmu or a malformed file are refused (PATH:LINE: why)\n"
		"  exit status: 0, 1 when a report cannot be read or the output written,\n"
		"  129 for a usage error\n");
	return f == stdout ? 0 : 129;
}

/* A figure per process: calls, ns, ns per call, then each common event. */
#define FIG_CALLS 0
#define FIG_NS 1
#define FIG_NPC 2
#define FIG_EV 3

/* A figure across processes; integers kept exact (counts may pass 2^53). */
struct spread {
	uint64_t min, max;
	double dmin, dmax, dsum;	/* ns per call */
	unsigned imin, imax;	/* the processes of min and max */
};

struct mregion {
	const char *name;
	unsigned nproc;
	uint64_t *tot;		/* calls, ns, each event: sums over processes */
	struct spread *sp;	/* per figure */
	bool range;		/* every process gave per call ranges */
	double ns_min, ns_max, *min, *max;
};

struct merge {
	unsigned nf, nev, nreg;
	struct pmu__rep *f;
	const char **ev;	/* common events, in the first file's order */
	unsigned **idx;		/* per file, per common event: its index in the file */
	struct mregion *reg;
	unsigned *slot;		/* regions by name: 1 + index, 0 free (open addressing) */
	size_t mask;
};

static void merge_free(struct merge *m)
{
	for (unsigned i = 0; i < m->nreg; i++) {
		free(m->reg[i].tot);
		free(m->reg[i].sp);
		free(m->reg[i].min);
		free(m->reg[i].max);
	}
	for (unsigned i = 0; m->f && i < m->nf; i++) {
		pmu__rep_free(&m->f[i]);
		free(m->idx ? m->idx[i] : NULL);
	}
	free(m->reg);
	free(m->slot);
	free(m->idx);
	free(m->ev);
	free(m->f);
}

static int nomem(void)
{
	fprintf(stderr, "pmu report merge: out of memory\n");
	return -ENOMEM;
}

static int event_in(const struct pmu__rep *r, const char *ev)
{
	for (unsigned i = 0; i < r->nev; i++)
		if (!strcmp(r->ev[i], ev))
			return (int)i;
	return -1;
}

/* The events all files have; a note on each left out. */
static int common_events(struct merge *m)
{
	m->ev = calloc(m->f[0].nev, sizeof(*m->ev));
	m->idx = calloc(m->nf, sizeof(*m->idx));
	if (!m->ev || !m->idx)
		return nomem();
	for (unsigned i = 0; i < m->f[0].nev; i++) {
		unsigned k = 1;

		while (k < m->nf && event_in(&m->f[k], m->f[0].ev[i]) >= 0)
			k++;
		if (k == m->nf)
			m->ev[m->nev++] = m->f[0].ev[i];
	}
	/* each event left out once, where it first appears */
	for (unsigned f = 0; f < m->nf; f++) {
		for (unsigned i = 0; i < m->f[f].nev; i++) {
			const char *e = m->f[f].ev[i];
			unsigned g = 0, lack = 0;

			while (g < f && event_in(&m->f[g], e) < 0)
				g++;
			for (unsigned k = 0; k < m->nf; k++)
				lack += event_in(&m->f[k], e) < 0;
			if (g < f || !lack)
				continue;
			fprintf(stderr, "pmu report merge: note: event %s left out: not in",
				pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, e));
			for (g = 0, lack = 0; g < m->nf; g++)
				if (event_in(&m->f[g], e) < 0)
					fprintf(stderr, "%s %s", lack++ ? "," : "", m->f[g].path);
			fputc('\n', stderr);
		}
	}
	if (!m->nev) {
		fprintf(stderr, "pmu report merge: no event is common to all the reports: nothing to merge\n");
		return -EINVAL;
	}
	for (unsigned f = 0; f < m->nf; f++) {
		m->idx[f] = calloc(m->nev, sizeof(**m->idx));
		if (!m->idx[f])
			return nomem();
		for (unsigned i = 0; i < m->nev; i++)
			m->idx[f][i] = (unsigned)event_in(&m->f[f], m->ev[i]);
	}
	return 0;
}

/* The slot of region name: where it is, else the free one to put it in. */
static unsigned *find_region(const struct merge *m, const char *name)
{
	size_t h = 2166136261u;	/* FNV-1a */

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (h &= m->mask;; h = (h + 1) & m->mask)
		if (!m->slot[h] || !strcmp(m->reg[m->slot[h] - 1].name, name))
			return &m->slot[h];
}

static void spread_add(struct spread *s, unsigned nproc, unsigned f, uint64_t x, double d)
{
	if (nproc == 1 || (d == d ? d < s->dmin : x < s->min)) {
		s->min = x;
		s->dmin = d;
		s->imin = f;
	}
	if (nproc == 1 || (d == d ? d > s->dmax : x > s->max)) {
		s->max = x;
		s->dmax = d;
		s->imax = f;
	}
	s->dsum += d == d ? d : 0;
}

/* Process f's region g into the merged one. */
static int add_region(struct merge *m, unsigned f, const struct pmu__rep_region *g)
{
	unsigned *slot = find_region(m, g->name), nfig = FIG_EV + m->nev;
	struct mregion *mr = *slot ? &m->reg[*slot - 1] : NULL;
	uint64_t v[2 + m->nev];

	if (!mr) {
		*slot = m->nreg + 1;
		mr = &m->reg[m->nreg++];
		mr->name = g->name;
		mr->tot = calloc(2 + m->nev, sizeof(*mr->tot));
		mr->sp = calloc(nfig, sizeof(*mr->sp));
		mr->min = calloc(m->nev, sizeof(*mr->min));
		mr->max = calloc(m->nev, sizeof(*mr->max));
		if (!mr->tot || !mr->sp || !mr->min || !mr->max)
			return nomem();
		mr->range = true;
	}
	mr->nproc++;
	v[0] = g->calls;
	v[1] = g->ns;
	for (unsigned i = 0; i < m->nev; i++)
		v[2 + i] = g->counts[m->idx[f][i]];
	for (unsigned i = 0; i < 2 + m->nev; i++) {
		if (__builtin_add_overflow(mr->tot[i], v[i], &mr->tot[i])) {
			fprintf(stderr, "pmu report merge: %s: region \"%s\": the sum of %s overflows 64 bits\n",
				m->f[f].path, g->name, i < 2 ? (i ? "ns" : "calls") : m->ev[i - 2]);
			return -ERANGE;
		}
		spread_add(&mr->sp[i < 2 ? i : i + 1], mr->nproc, f, v[i], NAN);
	}
	spread_add(&mr->sp[FIG_NPC], mr->nproc, f, 0, g->calls ? (double)g->ns / (double)g->calls : 0);
	/* per call ranges: the least and most of any process, when all give them */
	mr->range = mr->range && g->range;
	if (mr->range) {
		bool first = mr->nproc == 1;

		mr->ns_min = first || g->ns_min < mr->ns_min ? g->ns_min : mr->ns_min;
		mr->ns_max = first || g->ns_max > mr->ns_max ? g->ns_max : mr->ns_max;
		for (unsigned i = 0; i < m->nev; i++) {
			double lo = g->min[m->idx[f][i]], hi = g->max[m->idx[f][i]];

			mr->min[i] = first || lo < mr->min[i] ? lo : mr->min[i];
			mr->max[i] = first || hi > mr->max[i] ? hi : mr->max[i];
		}
	}
	return 0;
}

static int merge_files(struct merge *m, char **paths, unsigned n)
{
	unsigned cap = 0;
	int r;

	m->f = calloc(n, sizeof(*m->f));
	if (!m->f)
		return nomem();
	for (unsigned i = 0; i < n; i++) {
		r = pmu__rep_read(paths[i], &m->f[i]);
		if (r < 0) {
			fprintf(stderr, "pmu report merge: %s\n", tool_errmsg());
			return r;
		}
		m->nf++;
		cap += m->f[i].nreg;
		for (unsigned k = 0; k < i; k++) {
			const struct pmu__rep *a = &m->f[k], *b = &m->f[i];

			if (a->pid == b->pid && a->start_ns == b->start_ns && !strcmp(a->hostname, b->hostname)) {
				fprintf(stderr, "pmu report merge: %s: the same process as %s (pid %ld on %s, started %s): "
					"a report given twice?\n", b->path, a->path, b->pid,
					pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, b->hostname),
					pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, b->start));
				return -EINVAL;
			}
		}
	}
	r = common_events(m);
	if (r < 0)
		return r;
	for (m->mask = 1; m->mask < 2 * (size_t)cap; m->mask <<= 1)
		;
	m->reg = calloc(cap ? cap : 1, sizeof(*m->reg));
	m->slot = calloc(m->mask--, sizeof(*m->slot));
	if (!m->reg || !m->slot)
		return nomem();
	for (unsigned f = 0; f < m->nf; f++)
		for (unsigned i = 0; i < m->f[f].nreg; i++)
			if ((r = add_region(m, f, &m->f[f].reg[i])) < 0)
				return r;
	return 0;
}

/* ---- output ---- */

static const char *const stat_names[] = { "total", "min", "mean", "max" };

/* Integers as integers; a mean or ns per call with one decimal. */
static void put_num(FILE *f, int width, double x, bool frac)
{
	if (frac)
		fprintf(f, "%*.1f", width, x);
	else
		fprintf(f, "%*.0f", width, x);
}

/* Figure k in row s (0 total, 1 min, 2 mean, 3 max) of region r. */
static void put_value(FILE *f, int width, const struct mregion *r, unsigned s, unsigned k)
{
	const struct spread *sp = &r->sp[k];
	uint64_t tot = r->tot[k < FIG_NPC ? k : k - 1];

	if (k == FIG_NPC)
		put_num(f, width, s == 0 ? (r->tot[0] ? (double)r->tot[1] / (double)r->tot[0] : 0) :
			s == 1 ? sp->dmin : s == 3 ? sp->dmax : sp->dsum / r->nproc, true);
	else if (s == 2)
		put_num(f, width, (double)tot / r->nproc, true);
	else
		fprintf(f, "%*" PRIu64, width, s == 0 ? tot : s == 1 ? sp->min : sp->max);
}

static void out_table(FILE *f, const struct merge *m)
{
	char e[PMU_ESC_SIZE];
	int wr = 6, we[m->nev];

	for (unsigned i = 0; i < m->nreg; i++)
		if ((int)strlen(pmu__report_esc(e, m->reg[i].name)) > wr)
			wr = (int)strlen(e);
	fprintf(f, "libpmu merged report: %u process%s, %u region%s; events:", m->nf, m->nf == 1 ? "" : "es", m->nreg,
		m->nreg == 1 ? "" : "s");
	for (unsigned i = 0; i < m->nev; i++)
		fprintf(f, "%s %s", i ? "," : "", pmu__report_esc(e, m->ev[i]));
	fputc('\n', f);
	for (unsigned i = 0; i < m->nf; i++) {
		const struct pmu__rep *r = &m->f[i];

		fprintf(f, "  #%-3u %s: pid %ld on %s", i, pmu__report_esc(e, r->path), r->pid,
			pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, r->hostname));
		fprintf(f, ", started %s: %s\n", pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, r->start),
			pmu__report_esc(e, r->command));
	}
	if (!m->nreg)
		return;
	fprintf(f, "%-*s %5s  %-5s %12s %16s %14s", wr, "region", "procs", "", "calls", "ns", "ns/call");
	for (unsigned i = 0; i < m->nev; i++) {
		int len = (int)strlen(pmu__report_esc(e, m->ev[i]));

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
			put_value(f, 12, r, s, FIG_CALLS);
			fputc(' ', f);
			put_value(f, 16, r, s, FIG_NS);
			fputc(' ', f);
			put_value(f, 14, r, s, FIG_NPC);
			for (unsigned k = 0; k < m->nev; k++) {
				fputc(' ', f);
				put_value(f, we[k], r, s, FIG_EV + k);
			}
			if (s == 1 || s == 3)
				fprintf(f, "  #%u", s == 1 ? r->sp[FIG_NS].imin : r->sp[FIG_NS].imax);
			fputc('\n', f);
		}
	}
}

static void out_csv(FILE *f, const struct merge *m)
{
	fputs("region,processes,figure,process,calls,ns,ns_per_call", f);
	for (unsigned i = 0; i < m->nev; i++) {
		fputc(',', f);
		pmu__report_csv_field(f, m->ev[i]);
	}
	fputc('\n', f);
	for (unsigned i = 0; i < m->nreg; i++) {
		const struct mregion *r = &m->reg[i];

		for (unsigned s = 0; s < 4; s++) {
			pmu__report_csv_field(f, r->name);
			fprintf(f, ",%u,%s,", r->nproc, stat_names[s]);
			if (s == 1 || s == 3)
				pmu__report_csv_field(f, m->f[s == 1 ? r->sp[FIG_NS].imin : r->sp[FIG_NS].imax].path);
			for (unsigned k = 0; k < FIG_EV + m->nev; k++) {
				fputc(',', f);
				put_value(f, 0, r, s, k);
			}
			fputc('\n', f);
		}
	}
}

static void json_spread(FILE *f, const struct mregion *r, unsigned k)
{
	const struct spread *sp = &r->sp[k];

	fputs("{\"min\": ", f);
	put_value(f, 0, r, 1, k);
	fprintf(f, ", \"min_process\": %u, \"mean\": ", sp->imin);
	put_value(f, 0, r, 2, k);
	fputs(", \"max\": ", f);
	put_value(f, 0, r, 3, k);
	fprintf(f, ", \"max_process\": %u}", sp->imax);
}

static void json_events(FILE *f, const struct merge *m, const double *x)
{
	fputc('{', f);
	for (unsigned i = 0; i < m->nev; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, m->ev[i]);
		fprintf(f, ": %.17g", x[i]);
	}
	fputc('}', f);
}

static void out_json(FILE *f, const struct merge *m)
{
	fprintf(f, "{\n  \"library\": \"libpmu %s\",\n  \"files\": [", pmu_version());
	for (unsigned i = 0; i < m->nf; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, m->f[i].path);
	}
	fputs("],\n  \"processes\": [", f);
	for (unsigned i = 0; i < m->nf; i++) {
		const struct pmu__rep *r = &m->f[i];

		fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", f);
		pmu__json_str(f, r->path);
		fputs(", \"library\": ", f);
		pmu__json_str(f, r->library);
		fprintf(f, ", \"pid\": %ld, \"hostname\": ", r->pid);
		pmu__json_str(f, r->hostname);
		fputs(", \"command\": ", f);
		pmu__json_str(f, r->command);
		fputs(", \"start\": ", f);
		pmu__json_str(f, r->start);
		fprintf(f, ", \"start_ns\": %" PRIu64 "}", r->start_ns);
	}
	fputs("\n  ],\n  \"events\": [", f);
	for (unsigned i = 0; i < m->nev; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, m->ev[i]);
	}
	fputs("],\n  \"regions\": [", f);
	for (unsigned i = 0; i < m->nreg; i++) {
		const struct mregion *r = &m->reg[i];

		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		pmu__json_str(f, r->name);
		fprintf(f, ", \"processes\": %u, \"calls\": %" PRIu64 ", \"ns\": %" PRIu64 ", \"ns_per_call\": %.1f, "
			"\"counts\": {", r->nproc, r->tot[0], r->tot[1],
			r->tot[0] ? (double)r->tot[1] / (double)r->tot[0] : 0);
		for (unsigned k = 0; k < m->nev; k++) {
			fputs(k ? ", " : "", f);
			pmu__json_str(f, m->ev[k]);
			fprintf(f, ": %" PRIu64, r->tot[2 + k]);
		}
		fputs("},\n      \"per_process\": {\"calls\": ", f);
		json_spread(f, r, FIG_CALLS);
		fputs(",\n        \"ns\": ", f);
		json_spread(f, r, FIG_NS);
		fputs(",\n        \"ns_per_call\": ", f);
		json_spread(f, r, FIG_NPC);
		fputs(",\n        \"counts\": {", f);
		for (unsigned k = 0; k < m->nev; k++) {
			fputs(k ? ",\n          " : "\n          ", f);
			pmu__json_str(f, m->ev[k]);
			fputs(": ", f);
			json_spread(f, r, FIG_EV + k);
		}
		fputs("}}", f);
		if (r->range) {
			fprintf(f, ",\n      \"ns_min\": %.17g, \"ns_max\": %.17g, \"min\": ", r->ns_min, r->ns_max);
			json_events(f, m, r->min);
			fputs(", \"max\": ", f);
			json_events(f, m, r->max);
		}
		fputc('}', f);
	}
	fputs(m->nreg ? "\n  ]\n}\n" : "]\n}\n", f);
}

static int merge_main(int argc, char **argv)
{
	enum { FORMAT = 256 };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *format = NULL;
	struct merge m = { 0 };
	FILE *f = stdout;
	locale_t c, old;
	int opt, r;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case FORMAT:
			format = optarg;
			if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json")) {
				fprintf(stderr, "pmu report merge: --format %s: unknown (table, csv or json)\n", format);
				return usage(stderr);
			}
			break;
		case 'h':
			return usage(stdout);
		case ':':
			fprintf(stderr, "pmu report merge: %s needs a value\n", argv[optind - 1]);
			return usage(stderr);
		default:
			fprintf(stderr, "pmu report merge: unknown option %s\n", argv[optind - 1]);
			return usage(stderr);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "pmu report merge: no report to merge\n");
		return usage(stderr);
	}
	if (out && !*out) {
		fprintf(stderr, "pmu report merge: -o: the path is empty\n");
		return usage(stderr);
	}
	if (!format)
		format = out ? pmu__report_format(out) : "table";
	r = merge_files(&m, argv + optind, (unsigned)(argc - optind));
	/* The figures first: a failure leaves no file made or written over. */
	if (r >= 0 && out && !(f = fopen(out, "we"))) {
		fprintf(stderr, "pmu report merge: %s: %s\n", out, strerror(errno));
		r = -errno;
	}
	if (r < 0) {
		merge_free(&m);
		return 1;
	}
	/* numbers as C writes them */
	c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	old = c ? uselocale(c) : (locale_t)0;
	if (!strcmp(format, "json"))
		out_json(f, &m);
	else if (!strcmp(format, "csv"))
		out_csv(f, &m);
	else
		out_table(f, &m);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	merge_free(&m);
	if (fflush(f) != 0 || ferror(f) || (f != stdout && fclose(f) != 0)) {
		fprintf(stderr, "pmu report merge: %s: %s\n", out ? out : "standard output", strerror(errno));
		return 1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "pmu report: which? (merge)\n");
		return usage(stderr);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	if (!strcmp(argv[1], "merge"))
		return merge_main(argc - 1, argv + 1);
	fprintf(stderr, "pmu report: unknown subcommand '%s' (merge)\n", argv[1]);
	return usage(stderr);
}
