/* SPDX-License-Identifier: MIT */
/*
 * The tool's view of the library: the pmu tool and the tests link libpmu.a
 * and may use any layer's header; this one includes them all.
 */
#ifndef PMU_TOOL_LAYERS_H
#define PMU_TOOL_LAYERS_H

#include "base/internal.h"	/* errors; locks that cancellation cannot interrupt */
#include "base/escape.h"	/* the output escapers: text, csv, json */
#include "parse/json.h"		/* the JSON reader: perf's files, reports */
#include "report/html.h"		/* the HTML report's pieces */
#include "parse/expr.h"		/* perf's metric expressions */
#include "parse/metric_defs.h"	/* metric definitions and the built-in set */
#include "output/outfile.h"	/* report files: written beside the name and renamed into place */
#include "output/report_path.h"	/* report paths and formats; the MPI rank */
#include "events/event.h"	/* resolving events, perf's generic names, format fields */
#include "events/sysfs.h"	/* PMUs of the sysfs root, aliases, tracepoints, sysctls, bounded file reads */
#include "events/event_pfm.h"	/* libpfm4's event list */
#include "events/spellings.h"	/* the events metrics name, by every spelling; the clocks */
#include "events/perf_json.h"	/* perf's JSON files: their metrics and events */
#include "events/perf_cpu.h"	/* this CPU as perf's files see it; the core PMU */
#include "counters/arch.h"	/* the architecture's policy: which sysctl gates user reads (pmu check) */
#include "counters/emulated.h"	/* the emulated counts' table: libpmu-qemu writes it, the launcher makes it */
#include "metrics/metric_use.h"	/* metric plans over a report's events (pmu report merge) */
#include "regions/region.h"	/* region labels and renames (the runtimes' plugins) */
#include "regions/thread.h"	/* the thread layer over what opens (libpmu-likwid) */
#include "report/report.h"	/* the region report's writers */
#include "report/merge.h"	/* pmu report merge's figures, and the report reader */
#include "zerocode/zerocode.h"	/* zero-code mode's report at exit */

#endif
