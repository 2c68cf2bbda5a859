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

#include "events/event.h"	/* resolving events, perf's generic names, format fields */
#include "events/sysfs.h"	/* PMUs of the sysfs root, aliases, tracepoints, sysctls, bounded file reads */
#include "events/event_pfm.h"	/* libpfm4's event list */
#include "events/spellings.h"	/* the events metrics name, by every spelling; the clocks */
#include "base/expr.h"		/* perf's metric expressions */
#include "base/metric_defs.h"	/* metric definitions and the built-in set */
#include "base/escape.h"	/* the output escapers: text, csv, json */
#include "base/json.h"		/* the JSON reader: perf's files, reports */
#include "base/html.h"		/* the HTML report's pieces */
#include "base/outfile.h"	/* report files: written beside the name and renamed into place */
#include "base/report_path.h"
#include "report/report.h"
#include "zerocode/zerocode.h"	/* report file formats */
#include "metrics/metric_use.h"	/* metric plans over a report's events (pmu report merge) */
#include "events/perf_json.h"	/* perf's JSON files: their metrics and events */
#include "events/perf_cpu.h"	/* this CPU as perf's files see it; the core PMU */
#include "counters/arch.h"	/* the architecture's policy: which sysctl gates user reads (pmu check) */

#endif
