/* SPDX-License-Identifier: MIT */
/* Report file names (report_path.c), for pmu_report_path(), zero-code mode and the plugins. */
#ifndef PMU_REPORT_PATH_H
#define PMU_REPORT_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/internal.h"

/* The format a report file name asks for by its extension: "csv", "json", "html" (.html, .htm), "prometheus"
 * (.prom), "openmetrics" (.om), "table" (none, .txt, .text, .log, .out); NULL with a message for any other. */
const char *pmu__report_format(const char *path);

#endif
