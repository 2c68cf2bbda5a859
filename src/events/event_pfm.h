/* SPDX-License-Identifier: MIT */
/* libpfm4 glue: plain types only, since libpfm4 has its own struct perf_event_attr. */
#ifndef PMU_EVENT_PFM_H
#define PMU_EVENT_PFM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Resolves a libpfm4 name ("INST_RETIRED:ANY_P", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS")
 * into a type and config, config1, config2; pmu gets libpfm4's PMU name. 1 when
 * resolved, 0 when unknown or built without libpfm4, -errno with a message.
 */
int pmu__pfm_encode(const char *name, size_t len, uint32_t *type, uint64_t cfg[3],
		    char *pmu, size_t psize);

/* Calls cb for each event (and EVENT:UMASK) of the PMUs libpfm4 finds here. Count, or 0 without libpfm4. */
int pmu__pfm_list(void (*cb)(void *arg, const char *pmu, const char *ev, const char *desc), void *arg);

/* 1 when built with libpfm4 and it initialised. */
int pmu__pfm_available(void);

#endif
