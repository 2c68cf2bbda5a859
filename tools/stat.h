/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's parts, private to them: the command line (stat_args.c), the
 * events and their groups (stat_events.c), running and counting
 * (stat_run.c), the figures (stat_print.c), with stat.c taking a run
 * through them in order and stat_target.c owning what is counted.
 */
#ifndef PMU_TOOL_STAT_H
#define PMU_TOOL_STAT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "output/outfile.h"
#include "pmu.h"
#include "events/perf_json.h"
#include "stat_target.h"
#include "emulate.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"
#define DEFAULT_HW "cycles,instructions"	/* shown only when they open */

/* -r: mean and spread of a value over the runs (Welford's). */
struct runs {
	unsigned n;
	double mean, m2;
};

static inline void runs_add(struct runs *st, double x)
{
	double d = x - st->mean;

	st->n++;
	st->mean += d / st->n;
	st->m2 += d * (x - st->mean);
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
	char *spec;		/* what opens, when not name (a metric's event from perf's files); NULL: name */
	struct pmu_set *set;	/* NULL: not supported here */
	char *why;		/* why not */
	struct pmu_reading rd;
	bool counted;		/* ran at all */
	bool optional;		/* a default event left out when it does not open */
	double value;		/* scaled; with -r, the mean of the runs */
	double scale;		/* what perf stat multiplies value by to show it in unit (pmu_unit()); 0: 1 */
	char unit[16];		/* "msec", "Joules", "" */
	struct runs st;		/* -r: the runs' values */
	unsigned slot;		/* its place in its group ({a,b}): 0 for the leader and for an event alone */
	unsigned gsize;		/* the events of its group, 1 alone */
	char *mod;		/* the group's modifier ({a,b}:u), NULL for none */
	struct ev_count *per;	/* one per unit (the command, a thread, a CPU); rd, value and counted sum them */
};

/* A metric of -M or --topdown: where its events are among the run's. */
struct stat_metric {
	const struct pmu__pj_metric *m;
	unsigned nids;
	const char **ids;	/* the events the expression needs (the metric's parse owns them) */
	unsigned *ev;		/* each one's index in the run's events; STAT_DURATION: the wall time */
	unsigned leader;	/* the event whose line shows it: its first */
};

#define STAT_DURATION (~0u)	/* duration_time: the elapsed wall time, in ns, as perf's tool event */

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
	const struct stat_metric *met;	/* -M's metrics */
	unsigned nmet;
	bool metric_only;	/* --metric-only: the metrics' values alone, in columns */
};

/* One run of pmu stat: what the command line asked, then what was counted. */
struct stat_run {
	struct stat_opts so;
	char *events;		/* -e lists joined, NULL: the defaults */
	char *metrics;		/* -M lists joined, NULL: none */
	bool topdown;		/* --topdown: TopdownL1, metric-only */
	bool metric_no_group;	/* --metric-no-group: a metric's events each alone */
	bool no_merge;		/* --no-merge: an uncore family's instances each on a line */
	struct stat_metric *met;
	unsigned nmet;
	const char *outpath;	/* -o */
	struct pmu__out out;	/* -o's file, renamed into place at the end */
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
	bool emulate;		/* --emulate: CMD runs under emulation (emu) */
	const char *backend;	/* --emulate=qemu|valgrind; NULL: QEMU where it counts, else Valgrind */
	struct emu_launch emu;
};

/* stat_args.c: perf stat's spellings into r; -1, or an exit status (-h, a usage error). */
int stat_parse_args(struct stat_run *r, int argc, char **argv);

/* stat_events.c */
/* The -e lists (or the defaults, without -e, -M and --topdown) onto r->ev: 0 or -errno (tool_errmsg() says). */
int stat_events_resolve(struct stat_run *r);
/* Once -M's events are added too (stat_metrics_resolve): a reading per unit for each. 0 or -errno. */
int stat_events_ready(struct stat_run *r);
/* One more event alone (a metric's), named name, opening as spec (NULL: name): 0 or -errno (tool_errmsg()). */
int stat_event_add(struct stat_run *r, const char *name, const char *spec);
/* Closes group i on every unit. */
void stat_group_close(struct ev *ev, unsigned i, unsigned units);
/* Event e's memory, and its sets when it leads a group on units. */
void stat_event_free(struct ev *e, unsigned units);
void stat_events_free(struct ev *ev, unsigned n, unsigned units);
/* Before another -r run: every event closed and its reading cleared, its statistics kept. */
void stat_events_reset(struct stat_run *r);
/* The user gave group i's levels, on an event or on the group. */
bool stat_group_levels(const struct ev *ev, unsigned i);
/* Group i's events as one list: each with suffix, or as written with the group's modifier (suffix NULL). */
char *stat_group_spec(const struct ev *ev, unsigned i, const char *suffix);

/* stat_metric.c */
/* -M's (or --topdown's) metrics onto r->met, their events onto r->ev: 0 or -errno (tool_errmsg() says). */
int stat_metrics_resolve(struct stat_run *r);
void stat_metrics_free(struct stat_run *r);
/*
 * Metric k's value from the events ev (a line's view) and the elapsed
 * seconds, scaled by its ScaleUnit: false when it cannot be computed (an
 * event not counted, a division by zero), as perf leaves it blank then.
 */
bool stat_metric_value(const struct stat_metric *k, const struct ev *ev, double elapsed, double *v);
/* perf 6.1's figure of metric k: its printf format and its unit ("UNIT  NAME", or the name). */
void stat_metric_label(const struct stat_metric *k, const char **fmt, char *unit, size_t size);

/* stat_run.c: -r's runs, until one fails or is killed; -1 or 0 when they ran, else an exit status. */
int stat_runs(struct stat_run *r);

/* stat_print.c */
/* The figures of a run: perf stat's table, -x or --json lines. */
void stat_print(const struct stat_opts *so, const struct ev *ev, unsigned n, char **cmd, double elapsed,
		const struct rusage *ru);
/* -I: the interval's lines (its counts read), each after its timestamp t, seconds since counting began. */
void stat_print_interval(struct stat_run *r, double t);
/* -v: event e's raw reading and read path, on standard error. */
void stat_print_verbose(const struct ev *e);
/* The figures, then why events were missing. */
void stat_report(const struct stat_run *r);

#endif
