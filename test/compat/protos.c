/*
 * libpmu-papi's and libpmu-likwid's own prototypes against the installed
 * papi.h and likwid.h: both sets of declarations in one translation unit
 * (a conflict does not compile), each function assigned to a pointer of
 * our prototype's type, and the return codes compared. Built -Werror.
 */
#include <papi.h>
#define LIKWID_PERFMON
#include <likwid-marker.h>
#include <likwid.h>
#include <stdio.h>

#include "papi_protos.h"
#include "likwid_protos.h"

int main(void)
{
	int (*begin)(const char *) = PAPI_hl_region_begin;
	int (*read)(const char *) = PAPI_hl_read;
	int (*end)(const char *) = PAPI_hl_region_end;
	int (*stop)(void) = PAPI_hl_stop;
	void (*init)(void) = likwid_markerInit;
	void (*thr)(void) = likwid_markerThreadInit;
	void (*next)(void) = likwid_markerNextGroup;
	void (*close)(void) = likwid_markerClose;
	int (*reg)(const char *) = likwid_markerRegisterRegion;
	int (*start)(const char *) = likwid_markerStartRegion;
	int (*stp)(const char *) = likwid_markerStopRegion;
	int (*reset)(const char *) = likwid_markerResetRegion;
	void (*get)(const char *, int *, double *, double *, int *) = likwid_markerGetRegion;
	const void *all[] = { begin, read, end, stop, init, thr, next, close, reg, start, stp, reset, get };

	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!all[i])
			return 1;
	printf("13 prototypes match papi.h %d.%d and likwid.h; PAPI_OK..PAPI_EMISC equal\n",
	       PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION));
	return 0;
}
