/* SPDX-License-Identifier: MIT */
/*
 * LIKWID 5.2's marker API as libpmu-likwid exports it, with the prototypes of
 * its documentation, declared here so that the library builds without LIKWID's
 * headers. Installed as likwid.h under INCDIR/libpmu-likwid, beside
 * likwid-marker.h and likwid.mod, for programs (pkg-config --cflags libpmu-likwid).
 * test/compat/protos.c checks them against LIKWID's own likwid.h.
 */
#ifndef PMU_LIKWID_PROTOS_H
#define PMU_LIKWID_PROTOS_H

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char *regionTag);
int likwid_markerStartRegion(const char *regionTag);
int likwid_markerStopRegion(const char *regionTag);
int likwid_markerResetRegion(const char *regionTag);
void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events, double *time, int *count);

#endif
