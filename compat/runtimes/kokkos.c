// SPDX-License-Identifier: MIT
/*
 * libpmu-kokkos: a Kokkos Tools connector (the kokkosp_* hooks Kokkos 3.x
 * and 4.x call on the library KOKKOS_PROFILE_LIBRARY or KOKKOS_TOOLS_LIBS
 * names). Kernels become libpmu regions named by their labels and kinds
 * ("fill [for]", "sum [reduce]"), as do profile regions ("name [region]")
 * and sections ("name [section]"), on the thread that calls the hook; with
 * libpmu-omp loaded too, the other threads of a kernel that the OpenMP
 * backend runs count under its name as well.
 * Events and report as zero-code mode's (PMU_EVENTS, PMU_REPORT). See
 * libpmu-kokkos(7).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>
#include "plugin.h"
#include "base/internal.h"	/* header-only: locks, atomics, clocks */
#include "connector.h"

#define API __attribute__((visibility("default")))
#define DEPTH 64	/* kernels and profile regions open at once on a thread */
#define SECTIONS 1024	/* profile sections */
#define NAME 128	/* a region name, NUL included (libpmu's longest) */

static int own_report;	/* we called pmu_thread_init(): we write the report at finalize */

static void warn_once(const char *what, int r)
{
	static int said;

	if (r < 0 && PMU_ONCE(said))
		fprintf(stderr, "libpmu-kokkos: %s: %s (said once)\n", what, pmu_errmsg());
}

/* Each thread's open kernels and profile regions, innermost last: their names, for the end hooks give none. */
static __thread char open_names[DEPTH][NAME];
static __thread unsigned depth;

/* Begins "label [kind]" on this thread; *id (when not NULL) is what the end hook gets back. */
static void push(const char *label, const char *kind, uint64_t *id)
{
	if (id)
		*id = depth;
	if (depth < DEPTH) {
		/* "label [kind]", a long label cut to fit with "...": no printf on a kernel's way */
		char *n = open_names[depth];
		size_t l = label ? strnlen(label, NAME) : 0, k = strlen(kind);

		if (l + k + 4 > NAME) {
			memcpy(n, label, NAME - k - 7);
			memcpy(n + NAME - k - 7, "...", 3);
			l = NAME - k - 4;
		} else if (l) {
			memcpy(n, label, l);
		}
		n[l] = ' ';
		n[l + 1] = '[';
		memcpy(n + l + 2, kind, k);
		n[l + 2 + k] = ']';
		n[l + 3 + k] = '\0';
		warn_once(n, pmu_region_begin(n));
	}
	depth++;
}

/* Ends the innermost kernel or region, which id (when not UINT64_MAX) names. */
static void pop(uint64_t id, const char *hook)
{
	if (!depth || (id != UINT64_MAX && id != depth - 1)) {
		fprintf(stderr, "libpmu-kokkos: %s: no kernel %llu open on this thread: ignored\n", hook,
			(unsigned long long)id);
		return;
	}
	if (--depth < DEPTH)
		warn_once(open_names[depth], pmu_region_end(open_names[depth]));
}

API void kokkosp_begin_parallel_for(const char *name, uint32_t dev, uint64_t *id)
{
	(void)dev;
	push(name, "for", id);
}

API void kokkosp_end_parallel_for(uint64_t id)
{
	pop(id, "kokkosp_end_parallel_for");
}

API void kokkosp_begin_parallel_reduce(const char *name, uint32_t dev, uint64_t *id)
{
	(void)dev;
	push(name, "reduce", id);
}

API void kokkosp_end_parallel_reduce(uint64_t id)
{
	pop(id, "kokkosp_end_parallel_reduce");
}

API void kokkosp_begin_parallel_scan(const char *name, uint32_t dev, uint64_t *id)
{
	(void)dev;
	push(name, "scan", id);
}

API void kokkosp_end_parallel_scan(uint64_t id)
{
	pop(id, "kokkosp_end_parallel_scan");
}

API void kokkosp_push_profile_region(const char *name)
{
	push(name, "region", NULL);
}

API void kokkosp_pop_profile_region(void)
{
	pop(UINT64_MAX, "kokkosp_pop_profile_region");
}

/* ---- sections: named once, started and stopped by number on any thread ---- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *sections[SECTIONS];
static uint32_t nsections;

API void kokkosp_create_profile_section(const char *name, uint32_t *id)
{
	char n[NAME];
	int cs;

	snprintf(n, sizeof(n), "%s [section]", name ? name : "");
	cs = pmu__lock(&lock);
	*id = nsections;
	if (nsections < SECTIONS && (sections[nsections] = strdup(n)))
		nsections++;
	else
		*id = UINT32_MAX;
	pmu__unlock(&lock, cs);
	if (*id == UINT32_MAX)
		fprintf(stderr, "libpmu-kokkos: section %s: more than %d sections, or out of memory: not counted\n",
			n, SECTIONS);
}

static const char *section(uint32_t id)
{
	const char *n;
	int cs;

	cs = pmu__lock(&lock);
	n = id < nsections ? sections[id] : NULL;
	pmu__unlock(&lock, cs);
	return n;
}

API void kokkosp_start_profile_section(uint32_t id)
{
	const char *n = section(id);

	if (n)
		warn_once(n, pmu_region_begin(n));
}

API void kokkosp_stop_profile_section(uint32_t id)
{
	const char *n = section(id);

	if (n)
		warn_once(n, pmu_region_end(n));
}

API void kokkosp_destroy_profile_section(uint32_t id)
{
	(void)id;	/* its figures stay in the report */
}

/* ---- start and end ---- */

/*
 * The innermost kernel (or profile region) open on the calling thread:
 * libpmu-omp names the team of a parallel region begun inside it after it,
 * so that a kernel of the OpenMP backend counts every thread that ran it.
 */
static const char *current_label(void)
{
	return depth && depth <= DEPTH ? open_names[depth - 1] : NULL;
}

API void kokkosp_init_library(int seq, uint64_t version, uint32_t ndev, void *devices)
{
	(void)seq, (void)version, (void)ndev, (void)devices;
	PMU_STORE_RELEASE(pmu__region_label, current_label);
	own_report = pmu_connector_start("libpmu-kokkos", "kernels");
}

API void kokkosp_finalize_library(void)
{
	int cs;

	PMU_STORE_RELEASE(pmu__region_label, NULL);
	if (depth)
		fprintf(stderr, "libpmu-kokkos: %u kernel%s or region%s still open at finalize: not counted\n", depth,
			depth == 1 ? "" : "s", depth == 1 ? "" : "s");
	if (!own_report)
		return;
	pmu_connector_end("libpmu-kokkos");
	own_report = 0;
	cs = pmu__lock(&lock);
	for (uint32_t i = 0; i < nsections; i++)
		free(sections[i]);
	nsections = 0;
	pmu__unlock(&lock, cs);
}
