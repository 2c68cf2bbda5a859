/* SPDX-License-Identifier: MIT */
/*
 * Region reports: table, csv, json.
 *
 * A report copies every thread's sums while walking the thread records
 * (region.c copies each thread's consistently), then formats the copy
 * without the layer's lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "introspect.h"
#include "metrics.h"
#include "region.h"

struct snap_thr {
	pid_t tid;
	char tname[16];
	int exited;
	uint64_t *d;		/* per region: calls, ns, n values */
};

struct snap {
	unsigned n, nreg, nthr;
	char **ev;		/* event names */
	const char **reg;	/* region names */
	struct snap_thr *thr;
	uint64_t *tot;		/* per region: calls, ns, n values */
	unsigned *users;	/* per region: threads with calls */
};

#define STRIDE(s) (2 + (s)->n)

static void snap_free(struct snap *s)
{
	for (unsigned i = 0; s->ev && i < s->n; i++)
		free(s->ev[i]);
	for (unsigned i = 0; s->thr && i < s->nthr; i++)
		free(s->thr[i].d);
	free(s->ev);
	free(s->reg);
	free(s->thr);
	free(s->tot);
	free(s->users);
}

static int take_snap(struct snap *s)
{
	const struct pmu__tconf *c;
	const struct pmu__thr *t;
	unsigned k = 0;

again:
	memset(s, 0, sizeof(*s));
	c = pmu__thr_walk_begin();
	if (!c) {
		pmu__thr_walk_end();
		return pmu__err(-EINVAL, "pmu_report: the per-thread layer is not set up: call "
				"pmu_thread_init() first (or set PMU_EVENTS in the environment)");
	}
	s->n = c->n;
	s->nreg = pmu__region_count();
	for (t = pmu__thr_walk_next(NULL); t; t = pmu__thr_walk_next(t))
		s->nthr += __atomic_load_n(&t->used_regions, __ATOMIC_RELAXED);
	s->ev = calloc(s->n, sizeof(*s->ev));
	s->reg = calloc(s->nreg + 1, sizeof(*s->reg));
	s->thr = calloc(s->nthr + 1, sizeof(*s->thr));
	s->tot = calloc((size_t)(s->nreg + 1) * STRIDE(s), sizeof(*s->tot));
	s->users = calloc(s->nreg + 1, sizeof(*s->users));
	if (!s->ev || !s->reg || !s->thr || !s->tot || !s->users)
		goto nomem;
	for (unsigned i = 0; i < s->n; i++)
		if (!(s->ev[i] = strdup(c->names[i])))
			goto nomem;
	for (unsigned id = 0; id < s->nreg; id++)
		s->reg[id] = pmu__region_name(id);
	for (t = pmu__thr_walk_next(NULL), k = 0; t && k < s->nthr; t = pmu__thr_walk_next(t)) {
		struct snap_thr *st = &s->thr[k];

		/* A thread that begins its first region now is in the next report. */
		if (!__atomic_load_n(&t->used_regions, __ATOMIC_RELAXED))
			continue;
		st->tid = t->tid;
		memcpy(st->tname, t->tname, sizeof(st->tname));
		st->tname[sizeof(st->tname) - 1] = '\0';
		st->exited = __atomic_load_n(&t->exited, __ATOMIC_RELAXED);
		st->d = malloc(((size_t)s->nreg + 1) * STRIDE(s) * sizeof(uint64_t));
		if (!st->d)
			goto nomem;
		k++;
		pmu__region_copy(t, s->nreg, st->d);
	}
	pmu__thr_walk_end();
	s->nthr = k;
	/*
	 * A region named for the first time meanwhile is missing from the copy
	 * while the calls around it are in: take the copy again (names are
	 * few, and forgotten only by pmu_thread_fini(), so this ends).
	 */
	if (pmu__region_count() != s->nreg) {
		snap_free(s);
		goto again;
	}
	for (k = 0; k < s->nthr; k++) {
		for (unsigned id = 0; id < s->nreg; id++) {
			const uint64_t *d = s->thr[k].d + id * STRIDE(s);
			uint64_t *o = s->tot + id * STRIDE(s);

			if (!d[0])
				continue;
			s->users[id]++;
			for (unsigned i = 0; i < STRIDE(s); i++)
				o[i] += d[i];
		}
	}
	return 0;
nomem:
	pmu__thr_walk_end();
	s->nthr = k;
	snap_free(s);
	return pmu__err(-ENOMEM, "pmu_report: out of memory");
}

/* The metrics of the report: those the events allow, and (m[i].num < 0) those they do not. */
static void plan_metrics(const struct snap *s, struct pmu__metric_use *m)
{
	for (unsigned i = 0; i < PMU_NMETRICS; i++)
		if (!pmu__metrics[i].key ||
		    !pmu__metric_plan(&pmu__metrics[i], (const char *const *)s->ev, s->n, &m[i]))
			m[i].num = m[i].den = -1;
}

/* Metric i of the figures d (calls, ns, values); false when undefined (zero denominator). */
static bool metric(const struct pmu__metric_use *m, unsigned i, const uint64_t *d, double *out)
{
	return m[i].num >= 0 && pmu__metric_value((double)d[2 + m[i].num], (double)d[2 + m[i].den], out);
}

/* The longest name escaped: each byte may take four. */
#define ESC_SIZE (4 * PMU_REGION_NAME)

/*
 * s for a table or csv: a name taken from the program must neither end the
 * row nor drive a terminal, so control characters are written as \n, \t,
 * \r or \xHH (and \ as \\, so that it reads back one way).
 */
static const char *esc(char *buf, const char *s)
{
	size_t k = 0;

	for (; *s && k + 5 <= ESC_SIZE; s++) {
		unsigned char c = (unsigned char)*s;
		const char *e = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\\' ? "\\\\" : NULL;

		if (e)
			k += (size_t)sprintf(buf + k, "%s", e);
		else if (c < 0x20 || c == 0x7f)
			k += (size_t)sprintf(buf + k, "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	buf[k] = '\0';
	return buf;
}

static void thread_label(char *buf, size_t size, const struct snap_thr *t)
{
	char e[ESC_SIZE];

	snprintf(buf, size, "%d %s", (int)t->tid, esc(e, t->tname));
}

static void csv_field(FILE *f, const char *raw)
{
	char buf[ESC_SIZE];
	const char *s = esc(buf, raw);

	if (!s[strcspn(s, ",\"")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Column widths of the table; NULL for csv. */
struct widths {
	int region, thread;
	const size_t *ev;
};

/*
 * The rows of the table or csv: per region used, its total, then each
 * thread's (in the table only when more than one thread used the region).
 */
static void report_rows(FILE *f, const struct snap *s, const struct pmu__metric_use *m, const struct widths *w)
{
	char lab[96], e[ESC_SIZE];

	for (unsigned id = 0; id < s->nreg; id++) {
		const uint64_t *tot = s->tot + id * STRIDE(s);

		if (!tot[0])
			continue;
		for (int k = -1; k < (int)s->nthr; k++) {
			const uint64_t *d = k < 0 ? tot : s->thr[k].d + id * STRIDE(s);
			double x;

			if (k >= 0 && (!d[0] || (w && s->users[id] < 2)))
				continue;
			if (w) {
				if (k < 0)
					snprintf(lab, sizeof(lab), "total");
				else
					thread_label(lab, sizeof(lab), &s->thr[k]);
				fprintf(f, "%-*s  %-*s %10" PRIu64 " %14.1f", w->region, k < 0 ? esc(e, s->reg[id]) : "",
					w->thread, lab, d[0], (double)d[1] / (double)d[0]);
			} else {
				csv_field(f, s->reg[id]);
				if (k < 0) {
					fputs(",total,", f);
				} else {
					fputc(',', f);
					csv_field(f, s->thr[k].tname);
					fprintf(f, ",%d", (int)s->thr[k].tid);
				}
				fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.1f", d[0], d[1], (double)d[1] / (double)d[0]);
			}
			for (unsigned i = 0; i < s->n; i++)
				fprintf(f, w ? " %*" PRIu64 : ",%*" PRIu64, w ? (int)w->ev[i] : 0, d[2 + i]);
			for (unsigned i = 0; i < PMU_NMETRICS; i++) {
				if (m[i].num < 0 || m[i].den < 0)
					continue;
				bool ok = metric(m, i, d, &x);

				if (w && ok)
					fprintf(f, " %12.*f", pmu__metrics[i].scale > 1 ? 2 : 3, x * pmu__metrics[i].scale);
				else if (w)
					fprintf(f, " %12s", "-");
				else if (ok)
					fprintf(f, ",%.6f", x);
				else
					fputc(',', f);
			}
			fputc('\n', f);
		}
	}
}

static void report_table(FILE *f, const struct snap *s, const struct pmu__metric_use *m)
{
	size_t we[s->n ? s->n : 1];
	struct widths w = { 6, 6, we };
	unsigned nreg = 0;
	char lab[96], e[ESC_SIZE];

	for (unsigned id = 0; id < s->nreg; id++) {
		if (!s->tot[id * STRIDE(s)])
			continue;
		nreg++;
		if ((int)strlen(esc(e, s->reg[id])) > w.region)
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
		fprintf(f, "%s %s", i ? "," : "", esc(e, s->ev[i]));
	fputc('\n', f);
	if (!nreg)
		return;
	fprintf(f, "%-*s  %-*s %10s %14s", w.region, "region", w.thread, "thread", "calls", "ns/call");
	for (unsigned i = 0; i < s->n; i++) {
		size_t len = strlen(esc(e, s->ev[i]));

		we[i] = len > 14 ? len : 14;
		fprintf(f, " %*s", (int)we[i], e);
	}
	for (unsigned i = 0; i < PMU_NMETRICS; i++)
		if (m[i].num >= 0 && m[i].den >= 0)
			fprintf(f, " %12s", pmu__metrics[i].label);
	fputc('\n', f);
	report_rows(f, s, m, &w);
}

static void report_csv(FILE *f, const struct snap *s, const struct pmu__metric_use *m)
{
	fputs("region,thread,tid,calls,ns,ns_per_call", f);
	for (unsigned i = 0; i < s->n; i++) {
		fputc(',', f);
		csv_field(f, s->ev[i]);
	}
	for (unsigned i = 0; i < PMU_NMETRICS; i++)
		if (m[i].num >= 0 && m[i].den >= 0)
			fprintf(f, ",%s", pmu__metrics[i].key);
	fputc('\n', f);
	report_rows(f, s, m, NULL);
}

void pmu__json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_figures(FILE *f, const struct snap *s, const struct pmu__metric_use *m, const uint64_t *d)
{
	double x;

	fprintf(f, "\"calls\": %" PRIu64 ", \"ns\": %" PRIu64 ", \"ns_per_call\": %.1f, \"counts\": {",
		d[0], d[1], (double)d[1] / (double)d[0]);
	for (unsigned i = 0; i < s->n; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, s->ev[i]);
		fprintf(f, ": %" PRIu64, d[2 + i]);
	}
	fputs("}, \"metrics\": {", f);
	for (unsigned i = 0, k = 0; i < PMU_NMETRICS; i++) {
		if (m[i].num < 0 || m[i].den < 0)
			continue;
		fprintf(f, "%s\"%s\": ", k++ ? ", " : "", pmu__metrics[i].key);
		if (metric(m, i, d, &x))
			fprintf(f, "%.6f", x);
		else
			fputs("null", f);
	}
	fputc('}', f);
}

static void report_json(FILE *f, const struct snap *s, const struct pmu__metric_use *m)
{
	unsigned nr = 0;

	fputs("{\n  \"events\": [", f);
	for (unsigned i = 0; i < s->n; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, s->ev[i]);
	}
	fputs("],\n  \"regions\": [", f);
	for (unsigned id = 0; id < s->nreg; id++) {
		const uint64_t *tot = s->tot + id * STRIDE(s);
		unsigned nt = 0;

		if (!tot[0])
			continue;
		fputs(nr++ ? ",\n    {" : "\n    {", f);
		fputs("\"name\": ", f);
		pmu__json_str(f, s->reg[id]);
		fputs(", ", f);
		json_figures(f, s, m, tot);
		fputs(",\n      \"threads\": [", f);
		for (unsigned k = 0; k < s->nthr; k++) {
			const uint64_t *d = s->thr[k].d + id * STRIDE(s);

			if (!d[0])
				continue;
			fprintf(f, "%s\n        {\"tid\": %d, \"name\": ", nt++ ? "," : "", (int)s->thr[k].tid);
			pmu__json_str(f, s->thr[k].tname);
			fprintf(f, ", \"exited\": %s, ", s->thr[k].exited ? "true" : "false");
			json_figures(f, s, m, d);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs(nr ? "\n  ]\n}\n" : "]\n}\n", f);
}

PMU_API int pmu_report(FILE *out, const char *format)
{
	struct pmu__metric_use m[PMU_NMETRICS];
	struct snap s;
	int r, kind;

	if (!out)
		return pmu__err(-EINVAL, "pmu_report: the stream is NULL");
	if (!format || !strcmp(format, "table"))
		kind = 0;
	else if (!strcmp(format, "csv"))
		kind = 1;
	else if (!strcmp(format, "json"))
		kind = 2;
	else
		return pmu__err(-EINVAL, "%s: unknown report format (use table, csv or json)", format);
	r = take_snap(&s);
	if (r < 0)
		return r;
	plan_metrics(&s, m);
	if (kind == 0) {
		report_table(out, &s, m);	/* text for people: the program's locale, as perf's */
	} else {
		/* For programs: numbers as C writes them, whatever locale the host program set. */
		locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0), old;

		if (!c) {
			snap_free(&s);
			return pmu__err(-ENOMEM, "pmu_report: out of memory");
		}
		old = uselocale(c);
		if (kind == 1)
			report_csv(out, &s, m);
		else
			report_json(out, &s, m);
		uselocale(old);
		freelocale(c);
	}
	snap_free(&s);
	if (fflush(out) != 0 || ferror(out))
		return pmu__err(-EIO, "pmu_report: writing the report failed");
	return 0;
}
