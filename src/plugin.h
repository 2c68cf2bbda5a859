/* SPDX-License-Identifier: MIT */
/*
 * The library's private interface, for what is built beside it: this file
 * declares the private calls and nothing else.
 *
 * The plugins (compat/) link libpmu.so.0 and share its state with the
 * program: they call only the calls below, exported in a node named by the
 * library's exact version (src/plugin.map), so a plugin beside a library of
 * another version fails to load, naming that version. Each call and its users:
 *
 *   pmu__err                  libpmu-mpi (its messages, read by pmu_errmsg())
 *   pmu__event_next           libpmu-likwid (a group's events)
 *   pmu__fn_enter             libpmu-functions (-finstrument-functions' hooks, unversioned)
 *   pmu__fn_exit              libpmu-functions
 *   pmu__merge_add_buf        libpmu-mpi (a rank's report, or a subtree's merged one)
 *   pmu__merge_done           libpmu-mpi
 *   pmu__merge_free           libpmu-mpi
 *   pmu__merge_new            libpmu-mpi
 *   pmu__merge_write          libpmu-mpi (a subtree's merged json, sent up)
 *   pmu__merge_write_path     libpmu-mpi (the job's report)
 *   pmu__metric_expand        libpmu-likwid (metrics named in a group)
 *   pmu__mpi_rank             libpmu-papi (papi_hl_output/rank_N.json)
 *   pmu__pmu_cpus             libpmu-papi (RAPL's CPU)
 *   pmu__region_label         libpmu-omp, libpmu-kokkos (a region's label)
 *   pmu__region_rename        libpmu-omp (a region named when it is known)
 *   pmu__report_name          libpmu-mpi (the job's report's path)
 *   pmu__thread_init_avail    libpmu-likwid (groups that count what opens)
 *   pmu__zero_finish          libpmu-mpi (zero-code mode's report, then merged)
 *
 * The layers' headers include this one for these declarations. The pmu tool
 * and the tests link libpmu.a and may use any layer's header.
 */
#ifndef PMU_PLUGIN_H
#define PMU_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PMU_PLUGIN __attribute__((visibility("default")))

/* base/error.c: sets this thread's message and returns err; a -errno sets errno too. */
PMU_PLUGIN int pmu__err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* base/report_path.c: this process's MPI rank: OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or
 * SLURM_PROCID, the first that holds a plain decimal number; else -1. */
PMU_PLUGIN long pmu__mpi_rank(void);
/* path with %p (pid), %h (host name, '/' as '_'), %r (MPI rank, else the pid) and %% expanded into
 * buf; false when it does not fit. */
PMU_PLUGIN bool pmu__report_name(char *buf, size_t size, const char *path);

/*
 * events/event.c: splits a comma-separated list: commas inside "pmu/.../"
 * belong to the event. On the first call *p is the list. Returns 1 with
 * [*tok, *tok+*len) the next event, 0 at the end, or -EINVAL (message set)
 * for an empty event.
 */
PMU_PLUGIN int pmu__event_next(const char **p, const char **tok, size_t *len);
/* events/sysfs.c: the CPUs of a PMU's cpumask into cpus[0..max): how many (at most max), 0 when none. */
PMU_PLUGIN unsigned pmu__pmu_cpus(const char *pmu, int *cpus, unsigned max);

/*
 * metrics/metric_use.c: events, a pmu_open() list, with each name that is a
 * built-in metric or metric group replaced by its metrics' events. *spec
 * (malloc'd) is the list to open, *named (malloc'd, NULL when no metric was
 * named) the metrics named, ','-separated. 0 or -errno with a message.
 */
PMU_PLUGIN int pmu__metric_expand(const char *events, char **spec, char **named);

/*
 * regions/region.c: what the calling thread is inside, as a runtime's
 * connector names it (libpmu-kokkos: its innermost kernel), for another to
 * name work it sees on other threads by it (libpmu-omp: a parallel region's
 * team). NULL, or a function giving NULL, when there is none. Set and read atomically.
 */
PMU_PLUGIN extern const char *(*pmu__region_label)(void);
/* The calling thread's innermost open region becomes name's, its call counted there from its begin,
 * for libpmu-omp, which learns a parallel region's name only once code inside it runs. 0 or -errno. */
PMU_PLUGIN int pmu__region_rename(const char *name);
/*
 * regions/functions.c: the hooks of -finstrument-functions, which libpmu.so.0 exports as
 * __cyg_profile_func_enter/exit in LIBPMU_0.8, for programs linked with it. A program that is
 * not (LD_PRELOAD) refers to glibc's version of them, which only an unversioned definition
 * interposes: libpmu-functions.so's, which calls these.
 */
PMU_PLUGIN void pmu__fn_enter(void *fn, void *site);
PMU_PLUGIN void pmu__fn_exit(void *fn, void *site);
/* regions/thread.c: pmu_thread_init() of what opens: each unit (a '|'-separated group with by_group,
 * else each event) that cannot open is left out, with its reason, said once for who. 0 or -errno. */
PMU_PLUGIN int pmu__thread_init_avail(const char *events, bool by_group, const char *who);

/*
 * report/merge*.c: pmu report merge's figures, for libpmu-mpi's reduction.
 * Reports (a process's json, or a merged one) added one at a time, then
 * done, then written as any format a merged report has. 0 or -errno with a
 * message, read by pmu_errmsg().
 */
struct merge;
PMU_PLUGIN struct merge *pmu__merge_new(void);	/* NULL + errno */
PMU_PLUGIN int pmu__merge_add_buf(struct merge *m, const char *name, const char *buf, size_t len);
PMU_PLUGIN int pmu__merge_done(struct merge *m);
/* m in format ("table", "csv", "json", "html", "prometheus", "openmetrics") to f. */
PMU_PLUGIN int pmu__merge_write(FILE *f, const struct merge *m, const char *format);
/* m to the file path in format (NULL: the one its name asks for; a name asking for none is refused and
 * nothing is written), put in place whole; "stdout", "stderr" and "-" are those streams. */
PMU_PLUGIN int pmu__merge_write_path(const struct merge *m, const char *path, const char *format);
/* What m holds (and m itself, when pmu__merge_new() made it: its .own). */
PMU_PLUGIN void pmu__merge_free(struct merge *m);

/* zerocode/zerocode.c: zero-code mode's report taken over by a caller that writes it otherwise
 * (libpmu-mpi): PMU_REPORT's name ("stderr" without one), or NULL when this process writes none. */
PMU_PLUGIN const char *pmu__zero_finish(void);

#endif
