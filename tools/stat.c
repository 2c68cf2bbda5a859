/* SPDX-License-Identifier: MIT */
/*
 * pmu stat: counts a command and its children the way perf stat does.
 *
 * The command is forked first and waits on a pipe; its counters are opened
 * on its pid (inherit, enable on exec, each event on its own), then it is
 * let go and execs: counting starts at the exec and follows every child.
 * Like perf stat run by a user allowed to, events without a modifier count
 * user and kernel space; where the kernel refuses that (perf_event_paranoid)
 * they count user space only, as perf stat does then.
 */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "introspect.h"
#include "cmds.h"
#include "stat_target.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"
#define DEFAULT_HW "cycles,instructions"	/* shown only when they open */

/* -r: mean and spread of a value over the runs (Welford's). */
struct runs {
	unsigned n;
	double mean, m2;
};

static void runs_add(struct runs *st, double x)
{
	double d = x - st->mean;

	st->n++;
	st->mean += d / st->n;
	st->m2 += d * (x - st->mean);
}

/* The standard deviation of the mean, as perf stat computes it. */
static double runs_sd(const struct runs *st)
{
	double v = st->n > 1 ? st->m2 / (st->n - 1) / st->n : 0, r = v > 1 ? v : 1;

	for (int i = 0; v > 0 && i < 200; i++)	/* Newton's square root, without libm */
		r = (r + v / r) / 2;
	return v > 0 ? r : 0;
}

/* perf stat's "+- x.xx%": the standard deviation of the mean relative to it. */
static double runs_pct(const struct runs *st)
{
	return st->mean ? 100.0 * runs_sd(st) / st->mean : 0;
}

/* An event on one unit: the leader holds its group's set there. */
struct ev_count {
	struct pmu_set *set;	/* NULL: not open (a thread gone before) */
	struct pmu_reading rd;
	struct pmu_reading last;	/* -I: the cumulative reading at the last interval */
	double value;
	bool counted;
};

struct ev {
	char *name;		/* as the user wrote it */
	struct pmu_set *set;	/* NULL: not supported here */
	char *why;		/* why not */
	struct pmu_reading rd;
	bool counted;		/* ran at all */
	bool optional;		/* a default event left out when it does not open */
	double value;		/* scaled; with -r, the mean of the runs */
	struct runs st;		/* -r: the runs' values */
	unsigned slot;		/* its place in its group ({a,b}): 0 for the leader and for an event alone */
	unsigned gsize;		/* the events of its group, 1 alone */
	char *mod;		/* the group's modifier ({a,b}:u), NULL for none */
	struct ev_count *per;	/* one per unit (the command, a thread, a CPU); rd, value and counted sum them */
};

struct stat_opts {
	const char *sep;	/* -x */
	bool json;
	FILE *out;
	const char *msg_prefix;
	const char *prefix;	/* -I: the interval's timestamp field, before each line */
	unsigned repeat;	/* -r: runs asked for */
	struct runs el;		/* the runs made: their elapsed times */
	const struct stat_target *tg;	/* NULL: a command */
	const struct stat_unit *line;	/* the unit a line is about, NULL for the sum */
};

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu stat [-e EVENTS]... [-x SEP | -j] [-o FILE [--append]] [-r N] [-I MS] [-D MS] [-v]\n"
		"                [--] CMD [ARGS...]\n"
		"       pmu stat {-p PIDS | -t TIDS} [--per-thread] [OPTIONS] [[--] CMD [ARGS...]]\n"
		"       pmu stat {-a | -C CPUS} [-A] [OPTIONS] [[--] CMD [ARGS...]]\n"
		"  counts CMD and its children; prints each event's count, unit and, when the\n"
		"  kernel multiplexed it, the share of time it was counted (like perf stat)\n"
		"  -e, --event EVENTS   comma-separated events (default: " DEFAULT_EVENTS ",\n"
		"                       and " DEFAULT_HW " when the machine has them);\n"
		"                       {a,b} or {a,b}:MOD counts a group together\n"
		"  -p, --pid PIDS       count these processes (every thread) while CMD runs,\n"
		"                       else until ^C or they exit\n"
		"  -t, --tid TIDS       count these threads, as -p\n"
		"  --per-thread         with -p or -t: a line per thread\n"
		"  -a, --all-cpus       count every task on every CPU while CMD runs, else until ^C\n"
		"  -C, --cpu CPUS       as -a, on these CPUs (0-1,3)\n"
		"  -A, --no-aggr        with -a or -C: a line per CPU\n"
		"  -x, --field-separator SEP  one line per event: value SEP unit SEP event SEP\n"
		"                       running-ns SEP percent SEP metric-value SEP metric-unit\n"
		"  -j, --json-output, --json  one JSON object per event (perf stat's fields)\n"
		"  -o, --output FILE    write the figures to FILE (default: standard error)\n"
		"  --append             with -o: add to FILE\n"
		"  -r, --repeat N       run CMD N times; print the means and, as perf stat,\n"
		"                       each one's relative standard deviation (+- x.xx%%)\n"
		"  -I, --interval-print MS  every MS milliseconds, the counts of that interval\n"
		"  -D, --delay MS       start counting MS milliseconds later: after CMD starts,\n"
		"                       or without one after pmu stat does (-1: never)\n"
		"  -v, --verbose        on standard error, each event's raw count, enabled and\n"
		"                       running times, and how it was read and why\n"
		"  exit status: the command's; 127 when it cannot be run, 128+N when killed by\n"
		"  signal N, 129 for a usage error (as perf stat); without CMD, 0 or, after ^C,\n"
		"  pmu stat ends by SIGINT as perf stat does\n");
	return f == stdout ? 0 : 129;
}

static bool is_clock(const char *name)
{
	return pmu__metric_is(name, pmu__metric_clocks);
}

/* The user gave a modifier (or a pmu/.../ form, whose modifiers we do not touch). */
static bool explicit_levels(const char *name)
{
	const char *c = strrchr(name, ':');

	if (strchr(name, '/'))
		return true;
	return c && c[1] && !c[1 + strspn(c + 1, "ukh")];
}

/* Closes group i on every unit. */
static void close_group(struct ev *ev, unsigned i, unsigned units)
{
	for (unsigned u = 0; ev[i].per && u < units; u++) {
		pmu_close(ev[i].per[u].set);
		ev[i].per[u].set = NULL;
	}
	for (unsigned k = i; k < i + ev[i].gsize; k++)
		ev[k].set = NULL;
}

/* Event i's memory, and its sets when it leads a group on units. */
static void free_event(struct ev *e, unsigned units)
{
	if (e->per && !e->slot)
		close_group(e, 0, units);
	else if (!e->per)
		pmu_close(e->set);
	free(e->per);
	free(e->name);
	free(e->why);
	free(e->mod);
}

static void free_events(struct ev *ev, unsigned n, unsigned units)
{
	for (unsigned i = 0; i < n; i++)
		free_event(&ev[i], units);
	free(ev);
}

/* One event onto ev, in a group with modifier mod or alone (mod NULL). */
static int add_event(struct ev **ev, unsigned *n, const char *tok, size_t len, const char *mod, bool optional)
{
	struct ev *g = realloc(*ev, (*n + 1) * sizeof(**ev));
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char *spec;
	int r;

	if (!g)
		return pmu__err(-ENOMEM, "out of memory");
	*ev = g;
	g += *n;
	memset(g, 0, sizeof(*g));
	g->gsize = 1;
	g->name = strndup(tok, len);
	g->mod = mod ? strdup(mod) : NULL;
	if (!g->name || (mod && !g->mod) || asprintf(&spec, "%.*s%s%s", (int)len, tok, mod ? ":" : "",
						     mod ? mod : "") < 0) {
		free_event(g, 0);
		return pmu__err(-ENOMEM, "out of memory");
	}
	/* A name that does not resolve is the user's mistake: stop before running anything. */
	if (mod && explicit_levels(g->name))
		r = pmu__err(-EINVAL, "not supported: '%s' in a group with modifier ':%s' (a modifier on both the "
			     "event and the group)", g->name, mod);
	else
		r = pmu_event_attr(spec, &attr);
	free(spec);
	if (r < 0) {
		free_event(g, 0);
		return optional ? 0 : r;
	}
	g->optional = optional;
	(*n)++;
	return 0;
}

/* "{a,b}" or "{a,b}:mod" at *p onto ev as one group, *p past it: 0 or -errno, naming the group. */
static int add_group(struct ev **ev, unsigned *n, const char **p)
{
	const char *s = *p, *close = strchr(s, '}'), *inner = strchr(s + 1, '{'), *end, *q, *tok;
	unsigned first = *n;
	char *body, *mod = NULL;
	size_t len;
	int r = 0;

	if (!close)
		return pmu__err(-EINVAL, "'%s': group not closed with '}'", s);
	if (inner && inner < close)
		return pmu__err(-EINVAL, "'%.*s': group not closed with '}' before the next '{' (groups do not nest)",
				(int)(close + 1 - s), s);
	end = close + 1;
	if (*end == ':') {
		len = strcspn(end + 1, ",");
		if (!len)
			return pmu__err(-EINVAL, "'%.*s': no modifier after the group's ':'", (int)(end + 1 - s), s);
		mod = strndup(end + 1, len);
		if (!mod)
			return pmu__err(-ENOMEM, "out of memory");
		end += 1 + len;
	}
	if (*end && *end != ',') {
		free(mod);
		return pmu__err(-EINVAL, "'%.*s': a ',' or the end of the list must follow the group's '}'",
				(int)(end + strcspn(end, ",") - s), s);
	}
	body = strndup(s + 1, (size_t)(close - s - 1));
	if (!body) {
		free(mod);
		return pmu__err(-ENOMEM, "out of memory");
	}
	if (!body[strspn(body, " \t")])
		r = pmu__err(-EINVAL, "'%.*s': an empty group", (int)(end - s), s);
	for (q = body; r == 0 && q && (r = pmu__event_next(&q, &tok, &len)) > 0;)
		r = add_event(ev, n, tok, len, mod, false);
	for (unsigned k = first; r >= 0 && k < *n; k++) {
		(*ev)[k].slot = k - first;
		(*ev)[k].gsize = *n - first;
	}
	free(body);
	free(mod);
	*p = *end ? end + 1 : NULL;
	return r < 0 ? r : 0;
}

/* Splits a comma-separated list, {groups} too, onto ev; -errno with a message on a bad list. */
static int add_events(struct ev **ev, unsigned *n, const char *list, bool optional)
{
	const char *p = list, *tok;
	size_t len;
	int r = 0;

	while (p && r >= 0) {
		p += strspn(p, " \t");
		if (*p == '{') {
			r = add_group(ev, n, &p);
			continue;
		}
		r = pmu__event_next(&p, &tok, &len);
		if (r > 0 && (memchr(tok, '{', len) || memchr(tok, '}', len)))
			r = pmu__err(-EINVAL, "'%.*s': a brace must enclose a group of events, as in "
				     "'{task-clock,page-faults}'", (int)len, tok);
		if (r > 0)
			r = add_event(ev, n, tok, len, NULL, optional);
	}
	return r;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The events that can take part in a metric: those counted, NULL for the others. */
static void counted_names(const struct ev *ev, unsigned n, const char **names)
{
	for (unsigned k = 0; k < n; k++)
		names[k] = ev[k].set && ev[k].counted ? ev[k].name : NULL;
}

/* perf stat's comment for event i: value and unit, false when there is none. */
static bool metric(const struct ev *ev, unsigned n, unsigned i, double elapsed, double *v, const char **unit,
		   char *ubuf, size_t usize)
{
	const struct ev *e = &ev[i];
	const char *names[n];
	double rate;
	int clk;

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
	for (unsigned k = 0; k < PMU_NMETRICS; k++) {
		const struct pmu__metric *m = &pmu__metrics[k];
		int den;

		if (!pmu__metric_is(e->name, m->num) || (den = pmu__metric_find(names, n, m->den)) < 0)
			continue;
		if (!pmu__metric_value(e->value, ev[den].value, v))
			return false;
		*v *= m->scale;
		*unit = m->unit;
		return true;
	}
	clk = pmu__metric_find(names, n, pmu__metric_clocks);
	if (!pmu__metric_rated(e->name) || clk < 0 || !ev[clk].value)
		return false;
	rate = e->value / (ev[clk].value / 1e9);
	snprintf(ubuf, usize, "%s/sec", rate >= 1e9 ? "G" : rate >= 1e6 ? "M" : rate >= 1e3 ? "K" : "");
	*v = rate >= 1e9 ? rate / 1e9 : rate >= 1e6 ? rate / 1e6 : rate >= 1e3 ? rate / 1e3 : rate;
	*unit = ubuf;
	return true;
}

/* Event i's line: perf stat's text, -x or --json fields. */
static void print_event(const struct stat_opts *so, const struct ev *ev, unsigned n, unsigned i, double elapsed)
{
	FILE *f = so->out;
	const struct ev *e = &ev[i];
	const char *unit = is_clock(e->name) ? "msec" : "", *munit = "";
	double pct = e->rd.enabled ? 100.0 * (double)e->rd.running / (double)e->rd.enabled : 100.0;
	double mv = 0;
	char val[64], ubuf[16];
	bool has_m = metric(ev, n, i, elapsed, &mv, &munit, ubuf, sizeof(ubuf));

	if (!e->set)
		snprintf(val, sizeof(val), "<not supported>");
	else if (!e->counted)
		snprintf(val, sizeof(val), "<not counted>");
	else if (is_clock(e->name))
		snprintf(val, sizeof(val), so->json ? "%f" : "%.2f", e->value / 1e6);
	else
		snprintf(val, sizeof(val), so->json ? "%.6f" : "%.0f", e->value);
	if (so->json)
		fputc('{', f);
	if (so->prefix)
		fputs(so->prefix, f);
	if (so->line)
		stat_unit_print(so->line, f, so->sep, so->json);
	if (so->json) {
		fprintf(f, "\"counter-value\" : \"%s\", \"unit\" : \"%s\", \"event\" : ", val, unit);
		pmu__json_str(f, e->name);
		if (so->el.n > 1)
			fprintf(f, ", \"variance\" : %.2f", runs_pct(&e->st));
		fprintf(f, ", \"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f", e->rd.running, pct);
		if (has_m)
			fprintf(f, ", \"metric-value\" : %f, \"metric-unit\" : \"%s\"", mv, munit);
		else if (!e->set || !e->counted)	/* as perf stat */
			fprintf(f, ", \"metric-value\" : 0.000000, \"metric-unit\" : \"\"");
		fprintf(f, "}\n");
	} else if (so->sep) {
		fprintf(f, "%s%s%s%s%s%s", val, so->sep, unit, so->sep, e->name, so->sep);
		if (so->el.n > 1)
			fprintf(f, "%.2f%%%s", runs_pct(&e->st), so->sep);
		fprintf(f, "%" PRIu64 "%s%.2f%s", e->rd.running, so->sep, pct, so->sep);
		if (has_m)
			fprintf(f, "%.3f%s%s", mv, so->sep, munit);
		else
			fprintf(f, "%s", so->sep);
		fputc('\n', f);
	} else {
		/* perf stat's columns: a name narrower when not counted, a comment of 35 */
		fprintf(f, "%18s %-4s %-*s", val, unit, e->set && e->counted ? 32 : 25, e->name);
		if (has_m) {
			int w = snprintf(NULL, 0, "%8.3f", mv);

			fprintf(f, " # %8.3f %-*s", mv, w < 31 ? 31 - w : 0, munit);
		} else {
			fprintf(f, "%*s", 35, "");
		}
		if (so->el.n > 1 && runs_pct(&e->st) != 0)	/* perf leaves out a deviation of 0 */
			fprintf(f, "  ( +-%6.2f%% )", runs_pct(&e->st));
		if (e->set && e->counted && e->rd.running < e->rd.enabled)
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

static void print(const struct stat_opts *so, const struct ev *ev, unsigned n, char **cmd, double elapsed,
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
	print_events(so, ev, n, elapsed);
	if (!table)
		return;
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

/* One run of pmu stat: what the command line asked, then what was counted. */
struct stat_run {
	struct stat_opts so;
	char *events;		/* -e lists joined, NULL: the defaults */
	const char *outpath;	/* -o */
	bool append;		/* --append */
	char **cmd;
	struct ev *ev;
	unsigned n;
	bool user_only;		/* the kernel refused kernel counting */
	unsigned interval;	/* -I, ms; 0: none */
	long delay;		/* -D, ms; -1: the events stay disabled */
	bool verbose;		/* -v */
	unsigned intervals;	/* -I: lines of the table printed, for its header */
	double elapsed;
	struct rusage ru;
	int status;		/* the command's, from wait4() */
	struct stat_target tg;	/* -p, -t, -a, -C */
	bool interrupted;	/* ^C ended the counting */
};

/* Appends a -e list to r->events. */
static int add_list(struct stat_run *r, const char *v)
{
	size_t l = r->events ? strlen(r->events) : 0;
	char *e = realloc(r->events, l + strlen(v) + 2);

	if (!e)
		return -ENOMEM;
	if (l)
		e[l++] = ',';
	strcpy(e + l, v);
	r->events = e;
	return 0;
}

/* perf stat's options that pmu stat does not have: refused by name, never taken for another meaning. */
static const struct option perf_only[] = {
	{ "metric-only", no_argument, NULL, 1002 },
	{ "topdown", no_argument, NULL, 1003 },
	{ "metrics", required_argument, NULL, 'M' },
};

static int not_supported(int c, const char *arg)
{
	for (size_t i = 0; i < PMU_ARRAY_SIZE(perf_only); i++)
		if (perf_only[i].val == c) {
			if (c < 256)
				fprintf(stderr, "pmu stat: not supported: -%c/--%s (a perf stat option that pmu stat "
					"does not have yet)\n", c, perf_only[i].name);
			else
				fprintf(stderr, "pmu stat: not supported: --%s (a perf stat option that pmu stat "
					"does not have yet)\n", perf_only[i].name);
			return usage(stderr);
		}
	fprintf(stderr, "pmu stat: unknown option '%s'\n", arg);
	return usage(stderr);
}

/* A whole number of milliseconds from lo to INT_MAX (the range perf stat's int holds) into *ms. */
static bool parse_ms(const char *arg, long lo, long *ms)
{
	char *end;
	long v;

	if (!((arg[0] >= '0' && arg[0] <= '9') || arg[0] == '-'))	/* strtol would take blanks and '+' */
		return false;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (*end || errno || v < lo || v > INT_MAX)
		return false;
	*ms = v;
	return true;
}

/* perf stat's spellings; CMD may follow the options with or without "--". -1, or an exit status. */
static int parse_args(struct stat_run *r, int argc, char **argv)
{
	enum { JSON = 2001, APPEND, PER_THREAD };
	struct option longopts[PMU_ARRAY_SIZE(perf_only) + 18] = {
		{ "event", required_argument, NULL, 'e' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json-output", no_argument, NULL, 'j' },
		{ "json", no_argument, NULL, JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, APPEND },
		{ "help", no_argument, NULL, 'h' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-thread", no_argument, NULL, PER_THREAD },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "delay", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
	};
	long ms;
	int c;

	memcpy(longopts + 17, perf_only, sizeof(perf_only));
	opterr = 0;
	optind = 1;
	/* "+": the first non-option is the command; ':' reports a missing value apart */
	while ((c = getopt_long(argc, argv, "+:e:x:jo:hr:I:p:t:aC:AD:vM:", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (add_list(r, optarg) < 0)
				return 1;
			break;
		case 'x':
			r->so.sep = optarg;
			break;
		case 'j':
		case JSON:
			r->so.json = true;
			break;
		case 'o':
			r->outpath = optarg;
			break;
		case APPEND:
			r->append = true;
			break;
		case 'h':
			return usage(stdout);
		case 'r': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (!*optarg || *end || optarg[0] == '-' || n < 1 || n > 100000) {
				fprintf(stderr, "pmu stat: -r '%s': not a number of runs from 1 to 100000\n", optarg);
				return usage(stderr);
			}
			r->so.repeat = (unsigned)n;
			break;
		}
		case 'p':
			r->tg.pids = optarg;
			break;
		case 't':
			r->tg.tids = optarg;
			break;
		case 'a':
			r->tg.all_cpus = true;
			break;
		case 'C':
			r->tg.cpus = optarg;
			break;
		case 'A':
			r->tg.no_aggr = true;
			break;
		case PER_THREAD:
			r->tg.per_thread = true;
			break;
		case 'I':
			/* perf stat 6.1 takes any interval from 1 ms on (0 would turn -I off there) */
			if (!parse_ms(optarg, 1, &ms)) {
				fprintf(stderr, "pmu stat: -I '%s': not an interval in milliseconds from 1 to %d\n",
					optarg, INT_MAX);
				return usage(stderr);
			}
			r->interval = (unsigned)ms;
			break;
		case 'D':
			if (!parse_ms(optarg, -1, &r->delay)) {
				fprintf(stderr, "pmu stat: -D '%s': not a delay in milliseconds from 0 to %d, or -1 "
					"(the events stay disabled)\n", optarg, INT_MAX);
				return usage(stderr);
			}
			break;
		case 'v':
			r->verbose = true;
			break;
		case ':':
			fprintf(stderr, "pmu stat: %s needs a value\n", argv[optind - 1]);
			return usage(stderr);
		default:
			return not_supported(c == '?' ? optopt : c, argv[optind - 1]);
		}
	}
	r->cmd = argv + optind;
	if (stat_target_check(&r->tg, r->cmd[0] != NULL, r->so.repeat) >= 0)
		return usage(stderr);
	if (r->so.sep && r->so.json) {
		fprintf(stderr, "pmu stat: -x and --json do not go together\n");
		return usage(stderr);
	}
	if (r->interval && r->so.repeat > 1) {
		fprintf(stderr, "pmu stat: -I and -r do not go together\n");
		return usage(stderr);
	}
	if (r->append && !r->outpath) {
		fprintf(stderr, "pmu stat: --append needs -o FILE\n");
		return usage(stderr);
	}
	return -1;
}

/* The events resolved (nothing runs when one is wrong) and the output opened: 0 or 1. */
static int prepare(struct stat_run *r)
{
	int rc;

	rc = add_events(&r->ev, &r->n, r->events ? r->events : DEFAULT_EVENTS, false);
	if (rc == 0 && !r->events)
		rc = add_events(&r->ev, &r->n, DEFAULT_HW, true);
	if (rc == 0 && !r->n)
		rc = pmu__err(-EINVAL, "\"%s\": no event named", r->events ? r->events : "");
	for (unsigned i = 0; rc == 0 && i < r->n; i++)
		if (!(r->ev[i].per = calloc(r->tg.n, sizeof(*r->ev[i].per))))
			rc = pmu__err(-ENOMEM, "out of memory");
	if (rc < 0) {
		fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
		return 1;
	}
	if (r->outpath) {
		r->so.out = fopen(r->outpath, r->append ? "ae" : "we");	/* not left open in the command */
		if (!r->so.out) {
			r->so.out = stderr;
			fprintf(stderr, "pmu stat: %s: %s\n", r->outpath, strerror(errno));
			return 1;
		}
		/* as perf stat -o begins its file, in every layout */
		time_t t = time(NULL);
		char when[64];

		fprintf(r->so.out, "# started on %s\n", ctime_r(&t, when) ? when : "?\n");
	}
	return 0;
}

/* The forked child: waits for go, then execs the command (its errno to ex on failure). */
static __attribute__((noreturn)) void child(char **cmd, int go[2], int ex[2])
{
	int err;
	char c;

	close(go[1]);
	close(ex[0]);
	if (read(go[0], &c, 1) != 1)	/* the parent gave up */
		_exit(127);
	execvp(cmd[0], cmd);
	err = errno;
	if (write(ex[1], &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* Group i's events as one list: each with suffix, or as written with the group's modifier (suffix NULL). */
static char *group_spec(const struct ev *ev, unsigned i, const char *suffix)
{
	size_t len = 1;
	char *spec, *p;

	for (unsigned k = i; k < i + ev[i].gsize; k++)
		len += strlen(ev[k].name) + 2 + (suffix ? strlen(suffix) : ev[k].mod ? strlen(ev[k].mod) + 1 : 0);
	spec = p = malloc(len);
	for (unsigned k = i; spec && k < i + ev[i].gsize; k++)
		p += sprintf(p, "%s%s%s%s%s", k > i ? "," : "", ev[k].name, suffix ? suffix : "",
			     !suffix && ev[k].mod ? ":" : "", !suffix && ev[k].mod ? ev[k].mod : "");
	return spec;
}

/* Opens group i on every unit; a thread that exited since it was listed is left out, as perf does. */
static int open_units(struct stat_run *r, unsigned i, const char *suffix)
{
	struct ev *e = &r->ev[i];
	char *spec = group_spec(r->ev, i, suffix);
	struct pmu_set *first = NULL;
	int rc = spec ? 0 : pmu__err(-ENOMEM, "out of memory");

	for (unsigned u = 0; u < r->tg.n && rc == 0; u++) {
		struct pmu_opts o;

		stat_target_opts(&r->tg, u, &o);
		if (r->delay && r->tg.kind == STAT_CMD)	/* -D: enabled once the delay is over, not at exec */
			o.flags = (o.flags & ~PMU_ENABLE_ON_EXEC) | PMU_DISABLED;
		rc = pmu_open_opts(&e->per[u].set, spec, &o);
		if (rc == -ESRCH && r->tg.kind == STAT_TASKS)
			rc = 0;
		if (!first)
			first = e->per[u].set;
	}
	free(spec);
	if (rc == 0 && !first)
		rc = pmu__err(-ESRCH, "%s: every thread to count has exited", e->name);
	if (rc < 0) {
		close_group(r->ev, i, r->tg.n);
		return rc;
	}
	for (unsigned k = i; k < i + e->gsize; k++)
		r->ev[k].set = first;	/* opened: the sets are the leader's, in per[] */
	return 0;
}

/* The user gave group i's levels, on an event or on the group. */
static bool group_levels(const struct ev *ev, unsigned i)
{
	for (unsigned k = i; k < i + ev[i].gsize; k++)
		if (ev[k].mod || explicit_levels(ev[k].name))
			return true;
	return false;
}

/*
 * Opens group i (an event alone or {a,b}); first with kernel counting when
 * the user named no modifier. r->user_only is set when the kernel refused that.
 */
static int open_event(struct stat_run *r, unsigned i)
{
	struct ev *e = &r->ev[i];
	bool refused = false;
	char buf[512];
	int rc;

	if (!group_levels(r->ev, i)) {
		rc = open_units(r, i, ":uk");
		if (rc == 0)
			return 0;
		/* Refused: user space only, named :u as perf names it (context-switches:u counts 0 there). */
		refused = rc == -EACCES || rc == -EPERM;
		if (refused && open_units(r, i, ":u") == 0) {
			for (unsigned k = i; k < i + e->gsize; k++) {
				char *n = malloc(strlen(r->ev[k].name) + 3);

				if (n) {
					sprintf(n, "%s:u", r->ev[k].name);
					free(r->ev[k].name);
					r->ev[k].name = n;
				}
			}
			r->user_only = true;
			return 0;
		}
	}
	/* As written: the failure in the user's words. */
	rc = open_units(r, i, NULL);
	if (rc == 0) {
		r->user_only |= refused;
		return 0;
	}
	e->why = strdup(stat_target_refused(&r->tg, e->name, -rc, buf, sizeof(buf)) ?: pmu_errmsg());
	return rc;
}

/* Opens every event on every unit; default hardware events the machine lacks are left out, as noise. */
static unsigned open_events(struct stat_run *r)
{
	unsigned opened = 0;

	for (unsigned i = 0; i < r->n;) {
		struct ev *ev = r->ev;
		int rc = open_event(r, i);

		if (rc < 0 && ev[i].optional) {	/* alone: not in a group */
			free_event(&ev[i], r->tg.n);
			memmove(&ev[i], &ev[i + 1], (r->n - i - 1) * sizeof(*ev));
			r->n--;
			continue;
		}
		opened += rc == 0;
		i += ev[i].gsize;
	}
	return opened;
}

/* Every group on every unit starts counting. */
static void enable_events(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i += r->ev[i].gsize)
		for (unsigned u = 0; u < r->tg.n; u++)
			if (r->ev[i].per[u].set && pmu_enable(r->ev[i].per[u].set) < 0)
				fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
}

/* Threads and CPUs count from here (the command's events from its exec); with -D, after the delay. */
static void start_counting(struct stat_run *r)
{
	if (r->tg.kind != STAT_CMD && !r->delay)
		enable_events(r);
}

static void read_counts(struct stat_run *r);

/* perf stat's interval header: the time, then the unit's column when there is one. */
static void print_interval_header(const struct stat_opts *so)
{
	const char *col = !stat_target_lines(so->tg) ? "             counts" :
			  so->tg->kind == STAT_CPUS ? " CPU                    counts" :
			  "             comm-pid                  counts";

	fprintf(so->out, "#           time%s unit events\n", col);
}

/* -I: the counts since the last interval, each line after its timestamp (seconds since counting began). */
static void print_interval(struct stat_run *r, double t)
{
	struct stat_opts so = r->so;
	unsigned long sec = (unsigned long)t, ns = (unsigned long)((t - (double)sec) * 1e9);
	char prefix[64];

	if (so.json)
		snprintf(prefix, sizeof(prefix), "\"interval\" : %lu.%09lu, ", sec, ns);
	else
		snprintf(prefix, sizeof(prefix), "%6lu.%09lu%s", sec, ns, so.sep ? so.sep : " ");
	so.prefix = prefix;
	read_counts(r);
	/* perf stat repeats the table's header every 25 intervals */
	if (!so.sep && !so.json && r->intervals++ % 25 == 0)
		print_interval_header(&so);
	/* rates over the interval asked for, as perf stat's, the last partial one too */
	print_events(&so, r->ev, r->n, r->interval / 1e3);
	fflush(so.out);
}

/*
 * -D and -I: the delay, then each interval, ends at an absolute deadline
 * (late wake-ups do not add up).
 */
struct ticks {
	double t0;		/* when counting began; during the delay, when it was asked to */
	bool waiting;		/* for the delay to end */
	unsigned long k;	/* the next interval */
};

static void ticks_start(const struct stat_run *r, struct ticks *t, double t0)
{
	*t = (struct ticks){ .t0 = t0, .waiting = r->delay > 0, .k = 1 };
	if (r->delay)
		fprintf(stderr, "Events disabled\n");	/* perf stat's words */
}

/* The next deadline, -1 for none. */
static double tick_due(const struct stat_run *r, const struct ticks *t)
{
	if (t->waiting)
		return t->t0 + (double)r->delay / 1e3;
	return r->interval ? t->t0 + (double)t->k * r->interval / 1e3 : -1;
}

/* The deadline is past at now: the delay ends, or an interval is printed. */
static void tick(struct stat_run *r, struct ticks *t, double now)
{
	if (t->waiting) {
		enable_events(r);
		fprintf(stderr, "Events enabled\n");
		t->t0 = now_s();
		t->waiting = false;
	} else {
		print_interval(r, now - t->t0);
		t->k = (unsigned long)((now - t->t0) * 1e3 / r->interval) + 1;
	}
}

/* Counting is over: gone before the delay ended counts nothing (as perf stat); -I's last, partial interval. */
static double ticks_end(struct stat_run *r, struct ticks *t)
{
	if (t->waiting)
		t->t0 = now_s();
	else if (r->interval)
		print_interval(r, now_s() - t->t0);
	return t->t0;
}

static struct timespec ts_of(double s)
{
	return (struct timespec){ .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };
}

static void on_sigchld(int sig)
{
	(void)sig;	/* only ends ppoll */
}

/*
 * -D and -I while the command runs. SIGCHLD is let through inside ppoll
 * only, so the command's exit is never missed between the check and the
 * wait. Returns the time counting began.
 */
static double watch(struct stat_run *r, pid_t pid, double t0)
{
	struct sigaction sa = { .sa_handler = on_sigchld }, old_sa;
	sigset_t chld, old, wake;
	struct ticks t;
	pid_t w;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	sigaction(SIGCHLD, &sa, &old_sa);
	wake = old;
	sigdelset(&wake, SIGCHLD);
	ticks_start(r, &t, t0);
	while ((w = wait4(pid, &r->status, WNOHANG, &r->ru)) == 0 || (w < 0 && errno == EINTR)) {
		double now = now_s(), due = tick_due(r, &t);
		struct timespec left = ts_of(due - now);

		if (due >= 0 && now >= due)
			tick(r, &t, now);
		else
			ppoll(NULL, 0, due >= 0 ? &left : NULL, &wake);
	}
	sigaction(SIGCHLD, &old_sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ticks_end(r, &t);
}

/* -D and -I without a command: until ^C, or the threads exit. True when interrupted. */
static bool watch_targets(struct stat_run *r, double *t0)
{
	enum stat_wait w;
	sigset_t intr, old;
	struct ticks t;

	/* ^C stays pending between waits, never lost nor fatal */
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	sigprocmask(SIG_BLOCK, &intr, &old);
	ticks_start(r, &t, *t0);
	for (;;) {
		double due = tick_due(r, &t);
		struct timespec at = ts_of(due);

		w = stat_target_wait(&r->tg, due >= 0 ? &at : NULL);
		if (w != STAT_WAIT_DUE)
			break;
		tick(r, &t, now_s());
	}
	*t0 = ticks_end(r, &t);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return w == STAT_WAIT_INT;
}

static void no_event(const struct stat_run *r)
{
	fprintf(stderr, "pmu stat: no event could be counted:\n");
	for (unsigned i = 0; i < r->n; i++)
		if (r->ev[i].why || !r->ev[i].slot)
			fprintf(stderr, "  %s\n", r->ev[i].why ? r->ev[i].why : r->ev[i].name);
}

/* Without a command: threads until they exit or ^C, CPUs until ^C. -1, or an exit status. */
static int count_targets(struct stat_run *r)
{
	double t0;

	if (!open_events(r)) {
		no_event(r);
		return 1;
	}
	start_counting(r);
	t0 = now_s();
	r->interrupted = watch_targets(r, &t0);
	r->elapsed = now_s() - t0;
	r->status = 0;
	return -1;
}

/* Lets the child exec and waits for it. -1 when it ran, else the exit status. */
static int release_and_wait(struct stat_run *r, pid_t pid, int go[2], int ex[2])
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int err = 0;
	double t0;
	ssize_t got;

	/* Like system(): the command gets ^C, we stay to print what it counted. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	start_counting(r);
	t0 = now_s();
	if (write(go[1], "g", 1) != 1)
		err = errno;
	close(go[1]);
	go[1] = -1;
	got = read(ex[0], &err, sizeof(err));
	if (got != (ssize_t)sizeof(err) && (r->interval || r->delay))
		t0 = watch(r, pid, t0);
	else
		while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
			;
	r->elapsed = now_s() - t0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (got == (ssize_t)sizeof(err)) {
		fprintf(stderr, "pmu stat: %s: %s\n", r->cmd[0], strerror(err));
		return 127;
	}
	if (WIFSIGNALED(r->status))	/* as perf stat names it: "sleep: Interrupt" */
		psignal(WTERMSIG(r->status), r->cmd[0]);
	return -1;
}

/* Forks the command, counts it, waits for it: -1 when it ran, else the exit status. */
static int run(struct stat_run *r)
{
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 }, rc = 1;
	pid_t pid;

	if (!r->cmd[0])
		return count_targets(r);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
		fprintf(stderr, "pmu stat: pipe: %s\n", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pmu stat: fork: %s\n", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(r->cmd, go, ex);
	close(go[0]);
	close(ex[1]);
	go[0] = ex[1] = -1;
	if (r->tg.kind == STAT_CMD)
		r->tg.u[0].pid = pid;
	if (!open_events(r)) {
		no_event(r);
		close(go[1]);	/* the child exits without running the command */
		go[1] = -1;
		waitpid(pid, NULL, 0);
		goto out;
	}
	rc = release_and_wait(r, pid, go, ex);
out:
	for (int k = 0; k < 2; k++) {
		if (go[k] >= 0)
			close(go[k]);
		if (ex[k] >= 0)
			close(ex[k]);
	}
	return rc;
}

/* Adds unit u's reading of event e, scaled when the kernel multiplexed it; -I: since the last interval. */
static void add_count(struct ev *e, unsigned u, const struct pmu_reading *now, bool interval)
{
	struct ev_count *c = &e->per[u];
	/* counts and times only grow: an interval's are the differences */
	const struct pmu_reading d = { .value = now->value - c->last.value, .enabled = now->enabled - c->last.enabled,
				       .running = now->running - c->last.running }, *rd = &d;

	if (interval)
		c->last = *now;
	c->rd = *rd;
	c->counted = rd->running > 0 && rd->enabled > 0;
	c->value = (double)rd->value;
	if (c->counted && rd->running < rd->enabled)
		c->value = (double)rd->value * (double)rd->enabled / (double)rd->running;
	e->rd.value += rd->value;
	e->rd.enabled += rd->enabled;
	e->rd.running += rd->running;
	e->value += c->value;
	e->counted |= c->counted;
}

/* -v: the raw reading (the units' sum) and the read path, on standard error, where perf stat -v prints. */
static void print_verbose(const struct ev *e)
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

/* Each event's count on each unit (with -I, since the last interval), and their sum. */
static void read_counts(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i += r->ev[i].gsize) {
		struct pmu_reading rd[r->ev[i].gsize];

		for (unsigned k = i; k < i + r->ev[i].gsize; k++) {
			struct ev *e = &r->ev[k];

			memset(&e->rd, 0, sizeof(e->rd));
			e->value = 0;
			e->counted = false;
			for (unsigned u = 0; u < r->tg.n; u++)
				e->per[u] = (struct ev_count){ .set = e->per[u].set, .last = e->per[u].last };
		}
		for (unsigned u = 0; r->ev[i].set && u < r->tg.n; u++) {
			struct pmu_set *set = r->ev[i].per[u].set;

			if (!set)
				continue;
			if (pmu_read_full(set, rd) < 0) {
				fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
				continue;
			}
			for (unsigned k = 0; k < r->ev[i].gsize; k++)
				add_count(&r->ev[i + k], u, &rd[k], r->interval);
		}
		for (unsigned k = i; r->verbose && k < i + r->ev[i].gsize; k++)
			print_verbose(&r->ev[k]);
	}
}

/* Before another -r run: every event closed and its reading cleared, its statistics kept. */
static void reset_events(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		struct ev *e = &r->ev[i];

		if (!e->slot)
			close_group(r->ev, i, r->tg.n);
		free(e->why);
		e->why = NULL;
		e->counted = false;
		memset(&e->rd, 0, sizeof(e->rd));
	}
}

/* A run's counts into the statistics; with several runs, each event's value is their mean. */
static void add_run(struct stat_run *r)
{
	runs_add(&r->so.el, r->elapsed);
	for (unsigned i = 0; i < r->n; i++) {
		struct ev *e = &r->ev[i];

		runs_add(&e->st, e->value);
		if (r->so.el.n > 1)
			e->value = e->st.mean;
	}
	if (r->so.el.n > 1)
		r->elapsed = r->so.el.mean;
}

/* The figures, then why events were missing. */
static void report(const struct stat_run *r)
{
	if (!r->interval)	/* -I printed every interval, and perf stat no total */
		print(&r->so, r->ev, r->n, r->cmd, r->elapsed, &r->ru);
	for (unsigned i = 0; i < r->n; i++)
		if (r->ev[i].why)
			fprintf(stderr, "pmu stat: %s\n", r->ev[i].why);
	if (r->user_only)
		fprintf(stderr, "pmu stat: counting user space only: the kernel refused kernel counting "
			"(kernel.perf_event_paranoid); add :u to the events to say so, or lower it\n");
}

int cmd_stat(int argc, char **argv)
{
	struct stat_run r = { .so = { .out = stderr, .tg = &r.tg } };
	int rc = parse_args(&r, argc, argv);

	if (rc >= 0)	/* -h, or a usage error */
		goto out;
	rc = stat_target_resolve(&r.tg);
	if (rc >= 0)
		goto out;
	rc = prepare(&r);
	/* -r: the runs, until one fails or is killed; the events are opened anew for each */
	while (rc == 0 && r.so.el.n < (r.so.repeat ? r.so.repeat : 1)) {
		if (r.so.el.n)
			reset_events(&r);
		rc = run(&r);
		if (rc >= 0)
			break;
		if (!r.interval)
			read_counts(&r);
		add_run(&r);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status))
			break;
		rc = 0;
	}
	if (rc <= 0 && r.so.el.n) {
		report(&r);
		rc = WIFEXITED(r.status) ? WEXITSTATUS(r.status) :
		     WIFSIGNALED(r.status) ? 128 + WTERMSIG(r.status) : 1;
	}
out:
	if (r.so.out != stderr && fclose(r.so.out) != 0) {
		fprintf(stderr, "pmu stat: %s: %s\n", r.outpath, strerror(errno));
		if (!rc)
			rc = 1;
	}
	free_events(r.ev, r.n, r.tg.n);
	free(r.events);
	stat_target_free(&r.tg);
	if (r.interrupted) {	/* as perf stat: the figures, then the ^C that ended them */
		fflush(NULL);
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	return rc;
}
