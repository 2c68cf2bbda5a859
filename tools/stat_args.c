/* SPDX-License-Identifier: MIT */
/* pmu stat's command line: its usage, and perf stat's options into a struct stat_run. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "cmds.h"
#include "events/perf_json.h"
#include "stat.h"

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
		"  --no-merge           a line per instance of an uncore PMU family (uncore_imc_0,\n"
		"                       uncore_imc_1, ...), not their sum\n"
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
		"  -M, --metrics M[,M]  metrics or metric groups (pmu list metric, metricgroup):\n"
		"                       their events counted, each value beside its first event\n"
		"  --metric-only        the metrics' values alone, in columns\n"
		"  --topdown            TopdownL1's metrics, metric-only (refused, naming what is\n"
		"                       missing, where the machine has not their events)\n"
		"  --metric-no-group    a metric's events each alone, not in a group\n"
		"  --perf-json PATH     perf's event and metric files (also PMU_PERF_JSON)\n"
		"  --emulate[=BACKEND]  run CMD under emulation (pmu emulate; BACKEND qemu or\n"
		"                       valgrind, else QEMU where it counts): instructions is\n"
		"                       its exact count, without a PMU; other hardware events are\n"
		"                       refused, software ones count the emulator's run\n"
		"  exit status: the command's; 127 when it cannot be run, 128+N when killed by\n"
		"  signal N, 129 for a usage error (as perf stat); after a ^C that reached pmu\n"
		"  stat, it prints, then ends by SIGINT as perf stat does\n");
	return f == stdout ? 0 : 129;
}

/* Appends a -e (-M) list to *list. */
static int add_to(char **list, const char *v)
{
	size_t l = *list ? strlen(*list) : 0;
	char *e = realloc(*list, l + strlen(v) + 2);

	if (!e)
		return -ENOMEM;
	if (l)
		e[l++] = ',';
	strcpy(e + l, v);
	*list = e;
	return 0;
}

/*
 * perf 6.1 stat's options (builtin-stat.c's stat_options) that pmu stat
 * does not have: refused by name, never taken for another meaning.
 */
static const struct option perf_only[] = {
	{ "transaction", no_argument, NULL, 'T' },
	{ "filter", required_argument, NULL, 1100 },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "bpf-prog", required_argument, NULL, 'b' },
	{ "bpf-counters", no_argument, NULL, 1101 },
	{ "bpf-attr-map", required_argument, NULL, 1102 },
	{ "group", no_argument, NULL, 'g' },
	{ "scale", no_argument, NULL, 1103 },
	{ "table", no_argument, NULL, 1104 },
	{ "null", no_argument, NULL, 'n' },
	{ "detailed", no_argument, NULL, 'd' },
	{ "sync", no_argument, NULL, 'S' },
	{ "big-num", no_argument, NULL, 'B' },
	{ "no-big-num", no_argument, NULL, 1105 },
	{ "hybrid-merge", no_argument, NULL, 1107 },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "for-each-cgroup", required_argument, NULL, 1108 },
	{ "log-fd", required_argument, NULL, 1109 },
	{ "pre", required_argument, NULL, 1110 },
	{ "post", required_argument, NULL, 1111 },
	{ "interval-count", required_argument, NULL, 1112 },
	{ "interval-clear", no_argument, NULL, 1113 },
	{ "timeout", required_argument, NULL, 1114 },
	{ "per-socket", no_argument, NULL, 1115 },
	{ "per-die", no_argument, NULL, 1116 },
	{ "per-core", no_argument, NULL, 1117 },
	{ "per-node", no_argument, NULL, 1118 },
	{ "metric-no-merge", no_argument, NULL, 1119 },
	{ "td-level", required_argument, NULL, 1120 },
	{ "smi-cost", no_argument, NULL, 1121 },
	{ "all-kernel", no_argument, NULL, 1122 },
	{ "all-user", no_argument, NULL, 1123 },
	{ "percore-show-thread", no_argument, NULL, 1124 },
	{ "summary", no_argument, NULL, 1125 },
	{ "no-csv-summary", no_argument, NULL, 1126 },
	{ "quiet", no_argument, NULL, 'q' },
	{ "cputype", required_argument, NULL, 1127 },
	{ "pfm-events", required_argument, NULL, 1128 },
	{ "control", required_argument, NULL, 1129 },
	{ "iostat", optional_argument, NULL, 1130 },
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

enum { JSON = 2001, APPEND, PER_THREAD, METRIC_ONLY, TOPDOWN, METRIC_NO_GROUP, PERF_JSON, NO_MERGE, EMULATE };

/* pmu stat's own options, perf's spellings; perf_only follows them in the table getopt gets. */
static const struct option stat_opts[] = {
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
	{ "metrics", required_argument, NULL, 'M' },
	{ "metric-only", no_argument, NULL, METRIC_ONLY },
	{ "topdown", no_argument, NULL, TOPDOWN },
	{ "metric-no-group", no_argument, NULL, METRIC_NO_GROUP },
	{ "perf-json", required_argument, NULL, PERF_JSON },
	{ "no-merge", no_argument, NULL, NO_MERGE },
	{ "emulate", optional_argument, NULL, EMULATE },
};

/* The options that take a number: -1, or the exit status of a usage error. */
static int take_number(struct stat_run *r, int c, const char *arg)
{
	char *end;
	unsigned long n;
	long ms;

	switch (c) {
	case 'r':
		n = strtoul(arg, &end, 10);
		if (!*arg || *end || arg[0] == '-' || n < 1 || n > 100000) {
			fprintf(stderr, "pmu stat: -r '%s': not a number of runs from 1 to 100000\n", arg);
			return usage(stderr);
		}
		r->so.repeat = (unsigned)n;
		return -1;
	case 'I':
		/* perf stat 6.1 takes any interval from 1 ms on (0 would turn -I off there) */
		if (!parse_ms(arg, 1, &ms)) {
			fprintf(stderr, "pmu stat: -I '%s': not an interval in milliseconds from 1 to %d\n", arg, INT_MAX);
			return usage(stderr);
		}
		r->interval = (unsigned)ms;
		return -1;
	default:	/* 'D' */
		if (!parse_ms(arg, -1, &r->delay)) {
			fprintf(stderr, "pmu stat: -D '%s': not a delay in milliseconds from 0 to %d, or -1 "
				"(the events stay disabled)\n", arg, INT_MAX);
			return usage(stderr);
		}
		return -1;
	}
}

/* The options about what is counted and how it is printed: -1, or an exit status. */
static int take_metric_option(struct stat_run *r, int c, const char *arg)
{
	char *a[] = { "--perf-json", (char *)arg };
	int k = 0;

	switch (c) {
	case 'M':
		return add_to(&r->metrics, arg) < 0 ? 1 : -1;
	case METRIC_ONLY:
		r->so.metric_only = true;
		return -1;
	case TOPDOWN:
		/* as perf stat: its figures alone */
		r->topdown = true;
		r->so.metric_only = true;
		return -1;
	case METRIC_NO_GROUP:
		r->metric_no_group = true;
		return -1;
	default:	/* PERF_JSON */
		return tool_perf_json_option("stat", 2, a, &k) < 0 ? usage(stderr) : -1;
	}
}

/* One option of getopt's: -1 to go on, or an exit status. */
static int take_option(struct stat_run *r, int c, char **argv)
{
	switch (c) {
	case 'e':
		return add_to(&r->events, optarg) < 0 ? 1 : -1;
	case 'x':
		r->so.sep = optarg;
		return -1;
	case 'j':
	case JSON:
		r->so.json = true;
		return -1;
	case 'o':
		r->outpath = optarg;
		return -1;
	case APPEND:
		r->append = true;
		return -1;
	case 'h':
		return usage(stdout);
	case 'r': case 'I': case 'D':
		return take_number(r, c, optarg);
	case 'p':
		r->tg.pids = optarg;
		return -1;
	case 't':
		r->tg.tids = optarg;
		return -1;
	case 'a':
		r->tg.all_cpus = true;
		return -1;
	case 'C':
		r->tg.cpus = optarg;
		return -1;
	case 'A':
		r->tg.no_aggr = true;
		return -1;
	case PER_THREAD:
		r->tg.per_thread = true;
		return -1;
	case NO_MERGE:
		r->no_merge = true;
		return -1;
	case EMULATE:
		r->emulate = true;
		r->backend = optarg;
		return -1;
	case 'v':
		r->verbose = true;
		return -1;
	case 'M': case METRIC_ONLY: case TOPDOWN: case METRIC_NO_GROUP: case PERF_JSON:
		return take_metric_option(r, c, optarg);
	case ':':
		fprintf(stderr, "pmu stat: %s needs a value\n", argv[optind - 1]);
		return usage(stderr);
	default:
		return not_supported(c == '?' ? optopt : c, argv[optind - 1]);
	}
}

/* Options that do not go together: -1, or the exit status of a usage error. */
static int check_together(struct stat_run *r)
{
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
	if (r->so.metric_only && (r->interval || stat_target_lines(&r->tg) || r->tg.no_aggr || r->tg.per_thread)) {
		fprintf(stderr, "pmu stat: not supported: --metric-only%s with %s (a line per metric is)\n",
			r->topdown ? " (--topdown's)" : "", r->interval ? "-I" : r->tg.no_aggr ? "-A" : "--per-thread");
		return usage(stderr);
	}
	if (r->emulate && (!r->cmd[0] || stat_target_lines(&r->tg) || r->tg.pids || r->tg.tids || r->tg.all_cpus ||
			   r->tg.cpus)) {
		fprintf(stderr, "pmu stat: --emulate counts a command it runs: not -p, -t, -a or -C\n");
		return usage(stderr);
	}
	if (r->append && !r->outpath) {
		fprintf(stderr, "pmu stat: --append needs -o FILE\n");
		return usage(stderr);
	}
	return -1;
}

/* perf stat's spellings; CMD may follow the options with or without "--". -1, or an exit status. */
int stat_parse_args(struct stat_run *r, int argc, char **argv)
{
	struct option longopts[PMU_ARRAY_SIZE(stat_opts) + PMU_ARRAY_SIZE(perf_only) + 1] = { 0 };
	int c, rc;

	memcpy(longopts, stat_opts, sizeof(stat_opts));
	memcpy(longopts + PMU_ARRAY_SIZE(stat_opts), perf_only, sizeof(perf_only));
	opterr = 0;
	optind = 1;
	/* "+": the first non-option is the command; ':' reports a missing value apart */
	while ((c = getopt_long(argc, argv, "+:e:x:jo:hr:I:p:t:aC:AD:vM:TibgndSBG:q", longopts, NULL)) != -1)
		if ((rc = take_option(r, c, argv)) >= 0)
			return rc;
	r->cmd = argv + optind;
	return check_together(r);
}
