/* SPDX-License-Identifier: MIT */
/* Report file names (report_path.c), for pmu_report_path(), zero-code mode and the plugins. */
#ifndef PMU_REPORT_PATH_H
#define PMU_REPORT_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/internal.h"

/* The format a report file name asks for: "csv" (.csv), "json" (.json), "html" (.html, .htm), else "table". */
PMU_PLUGIN const char *pmu__report_format(const char *path);
/* This process's MPI rank: OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or SLURM_PROCID, the first that
 * holds a plain decimal number; else -1. libpmu-papi names its files by it too. */
PMU_PLUGIN long pmu__mpi_rank(void);
/* path with %p (pid), %h (host name, '/' as '_'), %r (MPI rank, else the pid) and %% expanded into
 * buf; false when it does not fit. */
PMU_PLUGIN bool pmu__report_name(char *buf, size_t size, const char *path);

#endif
