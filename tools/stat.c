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

struct ev {
	char *name;		/* as the user wrote it */
	struct pmu_set *set;	/* NULL: not supported here */
	char *why;		/* why not */
	struct pmu_reading rd;
	struct pmu_reading last;	/* -I: the cumulative reading at the last interval */
	bool counted;		/* ran at all */
	bool optional;		/* a default event left out when it does not open */
	double value;		/* scaled; with -r, the mean of the runs */
	struct runs st;		/* -r: the runs' values */
};

struct stat_opts {
	const char *sep;	/* -x */
	bool json;
	FILE *out;
	const char *msg_prefix;
	const char *prefix;	/* -I: the interval's timestamp field, before each line */
	unsigned repeat;	/* -r: runs asked for */
	struct runs el;		/* the runs made: their elapsed times */
};

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu stat [-e EVENTS]... [-x SEP | -j] [-o FILE [--append]] [-r N] [-I MS] [-D MS] [-v]\n"
		"                [--] CMD [ARGS...]\n"
		"  counts CMD and its children; prints each event's count, unit and, when the\n"
		"  kernel multiplexed it, the share of time it was counted (like perf stat)\n"
		"  -e, --event EVENTS   comma-separated events (default: " DEFAULT_EVENTS ",\n"
		"                       and " DEFAULT_HW " when the machine has them)\n"
		"  -x, --field-separator SEP  one line per event: value SEP unit SEP event SEP\n"
		"                       running-ns SEP percent SEP metric-value SEP metric-unit\n"
		"  -j, --json-output, --json  one JSON object per event (perf stat's fields)\n"
		"  -o, --output FILE    write the figures to FILE (default: standard error)\n"
		"  --append             with -o: add to FILE\n"
		"  -r, --repeat N       run CMD N times; print the means and, as perf stat,\n"
		"                       each one's relative standard deviation (+- x.xx%%)\n"
		"  -I, --interval-print MS  every MS milliseconds, the counts of that interval\n"
		"  -D, --delay MS       start counting MS milliseconds after CMD starts (-1: never)\n"
		"  -v, --verbose        on standard error, each event's raw count, enabled and\n"
		"                       running times, and how it was read and why\n"
		"  exit status: the command's; 127 when it cannot be run, 128+N when killed by\n"
		"  signal N, 129 for a usage error (as perf stat)\n");
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

/*
 * Opens name on pid; first with kernel counting when the user named no
 * modifier. *user_only is set when the kernel refused that.
 */
static int open_event(struct ev *e, pid_t pid, unsigned start, bool *user_only)
{
	struct pmu_opts o = { .size = sizeof(o), .pid = pid, .cpu = -1,
			      .flags = PMU_INHERIT | start | PMU_NO_GROUP };
	bool refused = false;
	char buf[512];
	int r;

	if (!explicit_levels(e->name) && strlen(e->name) + 4 < sizeof(buf)) {
		snprintf(buf, sizeof(buf), "%s:uk", e->name);
		r = pmu_open_opts(&e->set, buf, &o);
		if (r == 0)
			return 0;
		/* Refused: user space only, named :u as perf names it (context-switches:u counts 0 there). */
		refused = r == -EACCES || r == -EPERM;
		buf[strlen(buf) - 1] = '\0';
		if (refused && pmu_open_opts(&e->set, buf, &o) == 0) {
			char *n = strdup(buf);

			if (n) {
				free(e->name);
				e->name = n;
			}
			*user_only = true;
			return 0;
		}
	}
	/* As written: the failure in the user's words. */
	r = pmu_open_opts(&e->set, e->name, &o);
	if (r == 0) {
		*user_only |= refused;
		return 0;
	}
	e->why = strdup(pmu_errmsg());
	return r;
}

static void free_events(struct ev *ev, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		pmu_close(ev[i].set);
		free(ev[i].name);
		free(ev[i].why);
	}
	free(ev);
}

/* Splits a comma-separated list onto ev; -errno with a message on a bad list. */
static int add_events(struct ev **ev, unsigned *n, const char *list, bool optional)
{
	const char *p = list, *tok;
	size_t len;
	int r;

	while ((r = pmu__event_next(&p, &tok, &len)) > 0) {
		struct ev *g = realloc(*ev, (*n + 1) * sizeof(**ev));
		struct perf_event_attr attr;

		if (!g)
			return pmu__err(-ENOMEM, "out of memory");
		*ev = g;
		memset(&g[*n], 0, sizeof(g[*n]));
		g[*n].name = strndup(tok, len);
		if (!g[*n].name)
			return pmu__err(-ENOMEM, "out of memory");
		/* A name that does not resolve is the user's mistake: stop before running anything. */
		r = pmu_event_attr(g[*n].name, &attr);
		if (r < 0 && !optional) {
			free(g[*n].name);
			return r;
		}
		if (r < 0) {
			free(g[*n].name);
			continue;
		}
		g[*n].optional = optional;
		(*n)++;
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
	if (!pmu__metric_is(e->name, pmu__metric_rates) || clk < 0 || !ev[clk].value)
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
	if (so->json) {
		fprintf(f, "%s\"counter-value\" : \"%s\", \"unit\" : \"%s\", \"event\" : ", so->prefix ? so->prefix : "{",
			val, unit);
		pmu__json_str(f, e->name);
		if (so->el.n > 1)
			fprintf(f, ", \"variance\" : %.2f", runs_pct(&e->st));
		fprintf(f, ", \"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f", e->rd.running, pct);
		if (has_m)
			fprintf(f, ", \"metric-value\" : %f, \"metric-unit\" : \"%s\"", mv, munit);
		else if (!e->set || !e->counted)	/* perf's fields for an event without a count */
			fprintf(f, ", \"metric-value\" : %f, \"metric-unit\" : \"\"", 0.0);
		fprintf(f, "}\n");
	} else if (so->sep) {
		fprintf(f, "%s%s%s%s%s%s%s", so->prefix ? so->prefix : "", val, so->sep, unit, so->sep, e->name, so->sep);
		if (so->el.n > 1)
			fprintf(f, "%.2f%%%s", runs_pct(&e->st), so->sep);
		fprintf(f, "%" PRIu64 "%s%.2f%s", e->rd.running, so->sep, pct, so->sep);
		if (has_m)
			fprintf(f, "%.3f%s%s", mv, so->sep, munit);
		else
			fprintf(f, "%s", so->sep);
		fputc('\n', f);
	} else {
		fprintf(f, "%s%18s %-4s %-32s", so->prefix ? so->prefix : "", val, unit, e->name);
		/* perf's widths: a count's comment column is 7 wider than an absent count's */
		if (has_m)
			fprintf(f, " #%9.3f %-23s", mv, munit);
		else
			fprintf(f, "%*s", e->set && e->counted ? 35 : 28, "");
		if (so->el.n > 1 && runs_pct(&e->st) != 0)	/* perf leaves out a deviation of 0 */
			fprintf(f, "  ( +-%6.2f%% )", runs_pct(&e->st));
		if (e->set && e->counted && e->rd.running < e->rd.enabled)
			fprintf(f, " (%.2f%%)", pct);
		fputc('\n', f);
	}
}

static void print(const struct stat_opts *so, const struct ev *ev, unsigned n, char **cmd, double elapsed,
		  const struct rusage *ru)
{
	const struct runs *el = &so->el;
	FILE *f = so->out;

	if (!so->sep && !so->json) {
		fprintf(f, "\n Performance counter stats for '");
		for (char **a = cmd; *a; a++)
			fprintf(f, "%s%s", a == cmd ? "" : " ", *a);
		if (so->el.n > 1)
			fprintf(f, "' (%u runs):\n\n", so->el.n);
		else
			fprintf(f, "':\n\n");
	}
	for (unsigned i = 0; i < n; i++)
		print_event(so, ev, n, i, elapsed);
	if (!so->sep && !so->json && el->n > 1) {
		double sd = runs_sd(el), p = sd;
		int prec = 2;

		/* perf stat: two digits more than the deviation's first significant one */
		while (p > 0 && p < 1 && prec < 11) {
			p *= 10;
			prec++;
		}

		fprintf(f, "\n %17.*f +- %.*f seconds time elapsed  ( +-%6.2f%% )\n\n", prec, el->mean, prec, sd,
			runs_pct(el));
	} else if (!so->sep && !so->json) {
		fprintf(f, "\n %17.9f seconds time elapsed\n\n", elapsed);
		fprintf(f, " %17.9f seconds user\n", (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6);
		fprintf(f, " %17.9f seconds sys\n\n", (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
	}
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
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "per-thread", no_argument, NULL, 1001 },
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
	enum { JSON = 2001, APPEND };
	struct option longopts[PMU_ARRAY_SIZE(perf_only) + 12] = {
		{ "event", required_argument, NULL, 'e' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json-output", no_argument, NULL, 'j' },
		{ "json", no_argument, NULL, JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, APPEND },
		{ "help", no_argument, NULL, 'h' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "delay", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
	};
	long ms;
	int c;

	memcpy(longopts + 11, perf_only, sizeof(perf_only));
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
	if (!r->cmd[0]) {
		fprintf(stderr, "pmu stat: no command to count\n");
		return usage(stderr);
	}
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

/* Opens every event on pid; default hardware events the machine lacks are left out, as noise. */
static unsigned open_events(struct stat_run *r, pid_t pid)
{
	unsigned opened = 0;

	for (unsigned i = 0; i < r->n; i++) {
		struct ev *ev = r->ev;
		/* -D: opened disabled, enabled once the delay is over */
		int rc = open_event(&ev[i], pid, r->delay ? PMU_DISABLED : PMU_ENABLE_ON_EXEC, &r->user_only);

		if (rc < 0 && ev[i].optional) {
			pmu_close(ev[i].set);
			free(ev[i].name);
			free(ev[i].why);
			memmove(&ev[i], &ev[i + 1], (r->n - i - 1) * sizeof(*ev));
			r->n--;
			i--;
			continue;
		}
		opened += rc == 0;
	}
	return opened;
}

static void read_counts(struct stat_run *r);

/* -I: the counts since the last interval, each line after its timestamp (seconds since counting began). */
static void print_interval(struct stat_run *r, double t)
{
	struct stat_opts so = r->so;
	unsigned long sec = (unsigned long)t, ns = (unsigned long)((t - (double)sec) * 1e9);
	char prefix[64];

	if (so.json)
		snprintf(prefix, sizeof(prefix), "{\"interval\" : %lu.%09lu, ", sec, ns);
	else
		snprintf(prefix, sizeof(prefix), "%6lu.%09lu%s", sec, ns, so.sep ? so.sep : " ");
	so.prefix = prefix;
	read_counts(r);
	/* perf stat repeats the table's header every 25 intervals */
	if (!so.sep && !so.json && r->intervals++ % 25 == 0)
		fprintf(so.out, "#           time             counts unit events\n");
	/* rates over the interval asked for, as perf stat's, the last partial one too */
	for (unsigned i = 0; i < r->n; i++)
		print_event(&so, r->ev, r->n, i, r->interval / 1e3);
	fflush(so.out);
}

/* -D: the delay is over. */
static void enable_events(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->ev[i].set && pmu_enable(r->ev[i].set) < 0)
			fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
	fprintf(stderr, "Events enabled\n");	/* perf stat's words */
}

static void on_sigchld(int sig)
{
	(void)sig;	/* only ends ppoll */
}

/*
 * -D and -I, while the command runs: the delay, then each interval, ends at
 * an absolute deadline (late wake-ups do not add up). SIGCHLD is let through
 * inside ppoll only, so the command's exit is never missed between the check
 * and the wait. *t0 becomes the time counting began.
 */
static void watch(struct stat_run *r, pid_t pid, double *t0)
{
	struct sigaction sa = { .sa_handler = on_sigchld }, old_sa;
	sigset_t chld, old, wake;
	bool waiting = r->delay > 0;	/* for the delay to end */
	unsigned long k = 1;		/* the next interval */
	pid_t w;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	sigaction(SIGCHLD, &sa, &old_sa);
	wake = old;
	sigdelset(&wake, SIGCHLD);
	if (r->delay)
		fprintf(stderr, "Events disabled\n");
	while ((w = wait4(pid, &r->status, WNOHANG, &r->ru)) == 0 || (w < 0 && errno == EINTR)) {
		double now = now_s(), due = waiting ? *t0 + (double)r->delay / 1e3 :
					    r->interval ? *t0 + (double)k * r->interval / 1e3 : -1;
		struct timespec left;

		if (due >= 0 && now >= due) {
			if (waiting) {
				enable_events(r);
				*t0 = now_s();
				waiting = false;
			} else {
				print_interval(r, now - *t0);
				k = (unsigned long)((now - *t0) * 1e3 / r->interval) + 1;
			}
			continue;
		}
		if (due >= 0) {
			left.tv_sec = (time_t)(due - now);
			left.tv_nsec = (long)((due - now - (double)left.tv_sec) * 1e9);
		}
		ppoll(NULL, 0, due >= 0 ? &left : NULL, &wake);
	}
	if (waiting)	/* gone before the delay ended: nothing counted, as perf stat */
		*t0 = now_s();
	else if (r->interval)
		print_interval(r, now_s() - *t0);	/* the last, partial interval */
	sigaction(SIGCHLD, &old_sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
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
	t0 = now_s();
	if (write(go[1], "g", 1) != 1)
		err = errno;
	close(go[1]);
	go[1] = -1;
	got = read(ex[0], &err, sizeof(err));
	if (got != (ssize_t)sizeof(err) && (r->interval || r->delay))
		watch(r, pid, &t0);
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
	if (!open_events(r, pid)) {
		fprintf(stderr, "pmu stat: no event could be counted:\n");
		for (unsigned i = 0; i < r->n; i++)
			fprintf(stderr, "  %s\n", r->ev[i].why ? r->ev[i].why : r->ev[i].name);
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

/* -v: the raw reading and the read path, on standard error, where perf stat -v prints its readings. */
static void print_verbose(const struct ev *e)
{
	const char *why = "";
	int user;

	if (!e->set) {
		fprintf(stderr, "%s: <not supported> (%s)\n", e->name, e->why ? e->why : "");
		return;
	}
	user = pmu_user_read(e->set, 0, &why);
	fprintf(stderr, "%s: %" PRIu64 " %" PRIu64 " %" PRIu64 " (%s: %s)\n", e->name, e->rd.value, e->rd.enabled,
		e->rd.running, user > 0 ? "user-space read" : "read(2)", why);
}

/* Each event's count (with -I, since the last interval), scaled when the kernel multiplexed it. */
static void read_counts(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		struct ev *e = &r->ev[i];
		struct pmu_reading now;

		if (!e->set) {
			if (r->verbose)
				print_verbose(e);
			continue;
		}
		if (pmu_read_full(e->set, &now) < 0) {
			fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
			e->counted = false;
			continue;
		}
		/* counts and times only grow: an interval's are the differences */
		e->rd = (struct pmu_reading){ now.value - e->last.value, now.enabled - e->last.enabled,
					      now.running - e->last.running };
		if (r->interval)
			e->last = now;
		e->counted = e->rd.running > 0 && e->rd.enabled > 0;
		e->value = (double)e->rd.value;
		if (e->counted && e->rd.running < e->rd.enabled)
			e->value = (double)e->rd.value * (double)e->rd.enabled / (double)e->rd.running;
		if (r->verbose)
			print_verbose(e);
	}
}

/* Before another -r run: every event closed and its reading cleared, its statistics kept. */
static void reset_events(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		struct ev *e = &r->ev[i];

		pmu_close(e->set);
		e->set = NULL;
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
	struct stat_run r = { .so = { .out = stderr } };
	int rc = parse_args(&r, argc, argv);

	if (rc >= 0)	/* -h, or a usage error */
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
	free_events(r.ev, r.n);
	free(r.events);
	return rc;
}
