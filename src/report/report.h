/* SPDX-License-Identifier: MIT */
/* Report file names (report_path.c), for pmu_report_path() and zero-code mode, and report.c's numbers. */
#ifndef PMU_REPORT_H
#define PMU_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "internal.h"

/* The format a report file name asks for: "csv" (.csv), "json" (.json), "html" (.html, .htm), else "table". */
PMU_TOOL const char *pmu__report_format(const char *path);
/* This process's MPI rank: OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or SLURM_PROCID, the first that
 * holds a plain decimal number; else -1. libpmu-papi names its files by it too. */
PMU_TOOL long pmu__mpi_rank(void);
/* path with %p (pid), %h (host name, '/' as '_'), %r (MPI rank, else the pid) and %% expanded into
 * buf; false when it does not fit. */
PMU_TOOL bool pmu__report_name(char *buf, size_t size, const char *path);
/*
 * zero.c: zero-code mode's report taken over by a caller that writes it
 * otherwise (libpmu-mpi's one report per job): this thread's regions ended
 * ("(whole run)" on the main thread), none written at exit. PMU_REPORT's
 * name ("stderr" without one), or NULL when this process writes no
 * zero-code report.
 */
PMU_TOOL const char *pmu__zero_finish(void);
/* report_html.c: the snapshot as one HTML page. */
struct pmu_results;
void pmu__report_html(FILE *f, const struct pmu_results *s);
/* A double as the shortest text that reads back as the same double (report.c). */
PMU_TOOL void pmu__put_exact(FILE *f, double x);

#endif
