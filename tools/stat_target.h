/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's targets: the forked command, running threads (-p, -t) or CPUs
 * (-a, -C), each thread or CPU a unit with its own counters, printed summed
 * or one line each (--per-thread, -A) as perf stat prints them.
 */
#ifndef PMU_TOOL_STAT_TARGET_H
#define PMU_TOOL_STAT_TARGET_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "pmu.h"

enum stat_kind {
	STAT_CMD,	/* the forked command and its children */
	STAT_TASKS,	/* -p, -t: threads already running */
	STAT_CPUS,	/* -a, -C: every task on each CPU */
};

/* A thread or a CPU counted on its own. */
struct stat_unit {
	pid_t pid;		/* the thread; -1 on a CPU */
	int cpu;		/* the CPU; -1 for a thread */
	char comm[20];		/* the thread's name when the list was made */
};

struct stat_target {
	const char *pids, *tids, *cpus;	/* -p, -t, -C as given */
	bool all_cpus, no_aggr, per_thread;
	enum stat_kind kind;
	unsigned n;
	struct stat_unit *u;
};

/* The options that go together, given a command or not: -1, or 129 with a message. */
int stat_target_check(struct stat_target *t, bool cmd, unsigned repeat);

/* The lists into units (the command's unit has pid 0 until it is forked): -1, or an exit status. */
int stat_target_resolve(struct stat_target *t);

void stat_target_free(struct stat_target *t);

/* Where and how unit u's counters open. */
void stat_target_opts(const struct stat_target *t, unsigned u, struct pmu_opts *o);

/* A line per unit (-A, --per-thread) rather than their sum. */
/* With -a, the CPUs of the cpumasks of the event spec's per-CPU PMUs (how many into cpus), 0: every unit. */
unsigned stat_target_event_cpus(const struct stat_target *t, const char *spec, int *cpus, unsigned max);
bool stat_target_lines(const struct stat_target *t);

/* What perf stat's table header says is counted: 'CMD ARGS', 'system wide', process id '1,2'... */
void stat_target_header(const struct stat_target *t, char **cmd, FILE *f);

/* A unit's first column: CPU0, comm-tid; sep NULL for the table. */
void stat_unit_print(const struct stat_unit *u, FILE *f, const char *sep, bool json);

enum stat_wait {
	STAT_WAIT_DUE,	/* the deadline came */
	STAT_WAIT_GONE,	/* every thread counted has exited */
	STAT_WAIT_INT,	/* SIGINT */
};

/*
 * Waits for SIGINT (which the caller blocks), with threads until none is
 * left, and until the CLOCK_MONOTONIC time due (NULL: none).
 */
enum stat_wait stat_target_wait(const struct stat_target *t, const struct timespec *due);

/* The message for an event refused on unit u (errno err), into buf; NULL to keep the library's. */
const char *stat_target_refused(const struct stat_target *t, const char *event, int err, char *buf, size_t size);

#endif
