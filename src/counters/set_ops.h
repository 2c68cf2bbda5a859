/* SPDX-License-Identifier: MIT */
/*
 * The set layer's functions across its files: plan.c (events into counters and
 * groups), read.c (the read paths), topdown.c (Intel's topdown metric events),
 * why.c (which path, and why) and open_error.c (why an open failed), for set.c
 * (open, enable, close) and each other. The layout is set.h's.
 */
#ifndef PMU_SET_OPS_H
#define PMU_SET_OPS_H

#include "counters/set.h"

/* plan.c */
/* Parses events into c->attr, c->ctr and c->names. 0 or -errno. */
int pmu__parse_events(struct pmu__cold *c, const char *events);
/*
 * Puts counters into groups: one per hardware PMU, software-like events join
 * the first group (the kernel moves them into the hardware context); with
 * PMU_NO_GROUP each alone. Reorders c->ctr/c->attr so that each group's
 * counters are contiguous. 0 or -ENOMEM.
 */
int pmu__plan_cpus(struct pmu__cold *c, unsigned flags);
/* Whether event i counts socket-wide: on CPUs of its PMU's cpumask (PMU_SOCKET_WIDE). */
bool pmu__set_event_socket(const struct pmu_set *set, unsigned i);
/* Whether event i is counted by emulation, QEMU's or Valgrind's (emulated.c). */
bool pmu__set_event_emulated(const struct pmu_set *set, unsigned i);
int pmu__plan_groups(struct pmu__cold *c, unsigned flags);
/* Once the descriptors are open: the set's one group read, and each event's own. */
void pmu__plan_group_read(struct pmu_set *set);
void pmu__plan_event_reads(struct pmu_set *set);
/* Once the counters run: which pages may be read from user space (unmapping the others). */
void pmu__settle_read_paths(struct pmu_set *set);

/* read.c */
/* Every counter through read(2), one call per group, into rd (topdown groups noted). 0 or -errno. */
int pmu__read_counters(struct pmu_set *set, struct pmu_reading *rd);
/*
 * pmu_read() of a set whose events are one group read with read(2) (pmu__set_group_events() of
 * them all, none from user space), with the group's enabled and running ns of that same read.
 */
int pmu__read_group_times(struct pmu_set *set, uint64_t *values, uint64_t *en, uint64_t *run);
/* rd's counters summed per event into values (scaled), out, or (both NULL) rd + c->nctr. */
void pmu__sum_events(struct pmu__cold *c, struct pmu_reading *rd, uint64_t *values, struct pmu_reading *out);

/* topdown.c: Intel's topdown metric events (Ice Lake and later), tools/perf/Documentation/topdown.txt */
#define PMU_TD_SLOTS 1			/* slots: fixed counter 3 */
#define PMU_TD_METRIC 2			/* + i: metric i, a byte of PERF_METRICS (0 retiring .. 7 mem-bound) */
/* What a is: 0, PMU_TD_SLOTS or PMU_TD_METRIC + i (x86 core PMU events only). */
unsigned pmu__topdown_kind(const struct pmu__attr *a);
/* Groups metric events with slots leading (moved first); refuses a metric event without. 0 or -EINVAL. */
int pmu__topdown_plan(struct pmu__cold *c, unsigned flags);
/* Once the counters run: the set's topdown events leave the inline and group read paths. */
void pmu__topdown_settle(struct pmu_set *set);
/* Around a read(2) of topdown group gr: the pages' locks before it, the base after. */
void pmu__topdown_mark(struct pmu__cold *c, struct pmu__group *gr);
void pmu__topdown_noted(struct pmu__cold *c, struct pmu__group *gr, const struct pmu_reading *rd);
/* Every counter of a set with topdown events from user space into rd (times too if asked), or 1. */
int pmu__topdown_user_values(struct pmu__cold *c, struct pmu_reading *rd, bool times);
/* pmu_user_read() of such a set. */
int pmu__topdown_user_read(const struct pmu_set *set, unsigned i, const char **why);

/* why.c */
/*
 * Whether events of a's PMU can be read from user space at all: not
 * software, tracepoint or breakpoint events, which have no counter (and
 * which the kernel moves into any hardware group's context).
 */
bool pmu__type_user_readable(const struct pmu__attr *a);
/* Whether a may be read from user space, as far as the event tells: its PMU and the architecture's rules. */
bool pmu__event_user_readable(const struct pmu__attr *a);
/* Why not ("software event", "an SBI firmware event ..."), or NULL when it may. */
const char *pmu__event_blocker(const struct pmu__attr *a);
/* Why no counter of a set opened with these options can be read from user space, or NULL. */
const char *pmu__set_blocker(const struct pmu_opts *o);
/* Why counter k of an enabled set cannot be read from user space, given its page, or NULL. */
const char *pmu__user_read_blocker(struct pmu__perf_counter *k, const struct perf_event_mmap_page *pc,
				   const struct pmu__attr *a);
/* open_error.c */
/* Explains a failed perf_event_open() of event name on PMU a for task pid on cpu (-1: any); returns -err. */
/* Whether a seccomp filter is on this process (Seccomp: 2); capable: it holds CAP_PERFMON or CAP_SYS_ADMIN. */
bool pmu__seccomp_filtered(bool *capable);
int pmu__open_error(int err, const char *name, const struct pmu__attr *a, unsigned group_size, pid_t pid, int cpu);

#endif
