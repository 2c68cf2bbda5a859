/* SPDX-License-Identifier: MIT */
/*
 * PAPI 7.0's high-level API as libpmu-papi exports it: the prototypes of its
 * documentation (PAPI_hl_region_begin(3) and the others), declared here so that
 * the library builds without PAPI's headers. Installed as papi.h under
 * INCDIR/libpmu-papi for programs (pkg-config --cflags libpmu-papi).
 * test/compat/protos.c checks them against PAPI's own papi.h.
 */
#ifndef PMU_PAPI_PROTOS_H
#define PMU_PAPI_PROTOS_H

/* The return codes of papi.h that the high-level API gives. */
#define PAPI_OK		0
#define PAPI_EINVAL	-1
#define PAPI_ENOMEM	-2
#define PAPI_ESYS	-3
#define PAPI_ENOEVNT	-7
#define PAPI_ENOTRUN	-9
#define PAPI_EMISC	-14

int PAPI_hl_region_begin(const char *region);
int PAPI_hl_read(const char *region);
int PAPI_hl_region_end(const char *region);
int PAPI_hl_stop(void);

#endif
