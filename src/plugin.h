/* SPDX-License-Identifier: MIT */
/*
 * The library's private interface, for what is built beside it.
 *
 * The plugins (compat/) link libpmu.so.0 and share its state with the
 * program: they call only the calls below, declared PMU_PLUGIN in their
 * layer's header and exported in a node named by the library's exact version
 * (src/plugin.map), so a plugin beside a library of another version fails
 * to load, naming that version. Each call and its users:
 *
 *   pmu__err                  libpmu-mpi (its JSON reader's messages)
 *   pmu__event_next           libpmu-likwid (a group's events)
 *   pmu__metric_builtin       libpmu-mpi (the merge's metric keys)
 *   pmu__metric_expand        libpmu-likwid (metrics named in a group)
 *   pmu__mplan_free           libpmu-mpi (the merged report's metrics)
 *   pmu__mplan_make           libpmu-mpi
 *   pmu__mplan_value          libpmu-mpi
 *   pmu__mpi_rank             libpmu-papi (papi_hl_output/rank_N.json)
 *   pmu__out_close            libpmu-mpi (the merged report, renamed into place)
 *   pmu__out_open             libpmu-mpi
 *   pmu__pmu_cpus             libpmu-papi (RAPL's CPU)
 *   pmu__region_label         libpmu-omp, libpmu-kokkos (a region's label)
 *   pmu__region_rename        libpmu-omp (a region named when it is known)
 *   pmu__report_format        libpmu-mpi (the merged report's format)
 *   pmu__report_name          libpmu-mpi (the merged report's path)
 *   pmu__thread_init_avail    libpmu-likwid (groups that count what opens)
 *   pmu__zero_finish          libpmu-mpi (zero-code mode's report, then merged)
 *
 * libpmu-mpi also links the merge (tools/, libpmu-tool.a) and its stateless
 * helpers from src/base/ (JSON, escapes, HTML) as private copies. The pmu
 * tool and the tests link libpmu.a: they may use any layer's header, and
 * include this one for all of them.
 */
#ifndef PMU_PLUGIN_H
#define PMU_PLUGIN_H

#include "base/internal.h"	/* errors; locks that cancellation cannot interrupt */
#include "base/escape.h"	/* the output escapers: text, csv, json */
#include "base/json.h"		/* the JSON reader: perf's files, reports */
#include "base/html.h"		/* the HTML report's pieces */
#include "base/expr.h"		/* perf's metric expressions */
#include "base/metric_defs.h"	/* metric definitions and the built-in set */
#include "base/outfile.h"	/* report files: written beside the name and renamed into place */
#include "base/report_path.h"	/* report paths and formats; the MPI rank */
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
#include "report/report.h"
#include "zerocode/zerocode.h"	/* zero-code mode's report at exit */

#endif
