/* SPDX-License-Identifier: MIT */
/*
 * What the runtime connectors (libpmu-omp, libpmu-kokkos) share: the
 * per-thread layer set up from PMU_EVENTS when zero-code mode has not, and
 * then their own report to PMU_REPORT at the runtime's end.
 */
#ifndef PMU_COMPAT_CONNECTOR_H
#define PMU_COMPAT_CONNECTOR_H

#include <stdio.h>
#include <stdlib.h>

#include <pmu.h>

/*
 * PMU_EVENTS' events for every thread, unless zero-code mode set them up
 * (it writes the report at exit then). who names the connector, what the
 * things it counts. Returns 1 when the connector writes the report.
 */
static inline int pmu_connector_start(const char *who, const char *what)
{
	const char *env = secure_getenv("PMU_EVENTS");

	if (pmu_thread_event_count() > 0)
		return 0;
	if (!env || !*env) {
		fprintf(stderr, "%s: PMU_EVENTS is not set: counting task-clock\n", who);
		env = "task-clock";
	}
	if (pmu_thread_init(env) == 0)
		return 1;
	fprintf(stderr, "%s: PMU_EVENTS: %s: the %s are not counted\n", who, pmu_errmsg(), what);
	return 0;
}

/* The report to PMU_REPORT (else stderr), and the counters closed: the runtime has ended. */
static inline void pmu_connector_end(const char *who)
{
	const char *rep = secure_getenv("PMU_REPORT");

	if (rep && *rep ? pmu_report_path(rep, NULL) < 0 : pmu_report(stderr, NULL) < 0)
		fprintf(stderr, "%s: PMU_REPORT: %s\n", who, pmu_errmsg());
	pmu_thread_fini();
}

#endif
