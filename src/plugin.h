/* SPDX-License-Identifier: MIT */
/*
 * The library's private interface for the pmu tool: the layer headers
 * whose PMU_TOOL declarations libpmu.so exports, beyond pmu.h, in a version
 * node named by the library's exact version (LIBPMU_PRIVATE_x.y.z). A tool
 * run with a library of another version fails at load time with the
 * loader's "version `LIBPMU_PRIVATE_x.y.z' not found". Only PMU_TOOL
 * functions link from the tool; the rest of these headers is there for
 * their types.
 */
#ifndef PMU_PRIVATE_H
#define PMU_PRIVATE_H

#include "event.h"	/* resolving events, perf's generic names, format fields */
#include "sysfs.h"	/* PMUs of the sysfs root, aliases, tracepoints, sysctls, bounded file reads */
#include "event_pfm.h"	/* libpfm4's event list */
#include "metrics.h"	/* the events metrics name, by every spelling; the clocks */
#include "expr.h"		/* perf's metric expressions */
#include "metric_defs.h"	/* metric definitions and the built-in set */
#include "escape.h"	/* the output escapers: text, csv, json */
#include "json.h"		/* the JSON reader: perf's files, reports */
#include "html.h"		/* the HTML report's pieces */
#include "outfile.h"	/* report files: written beside the name and renamed into place */
#include "report.h"	/* report file formats */
#include "metric_use.h"	/* metric plans over a report's events (pmu report merge) */
#include "perf_json.h"	/* perf's JSON files: their metrics and events */
#include "perf_cpu.h"	/* this CPU as perf's files see it; the core PMU */
#include "arch.h"	/* the architecture's policy: which sysctl gates user reads (pmu check) */

#endif
