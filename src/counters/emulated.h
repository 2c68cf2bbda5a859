/* SPDX-License-Identifier: MIT */
/*
 * Emulated counters (emulated.c): where a program runs under QEMU's
 * user-mode emulation with libpmu-qemu, the event instructions is the
 * plugin's count of the calling thread, read with a load; for the launcher
 * (pmu stat --emulate), the whole run's. A set's emulated counters have no
 * descriptor (fd -1), each in a group of its own; the set layer starts,
 * stops and reads them through these.
 */
#ifndef PMU_EMULATED_H
#define PMU_EMULATED_H

#include <stdbool.h>
#include <stdint.h>

#include "counters/emu_table.h"

struct pmu_opts;
struct pmu_reading;
struct pmu__cold;

/* An emulated counter's state: its source, and what it counted while on. */
struct pmu__emu_ctr {
	bool on;				/* the counter is emulated */
	bool enabled;
	const struct pmu__emu_slot *slot;	/* the thread's; NULL: the run's total (the launcher's) */
	uint64_t acc, start;			/* counted before the last enable; the source then */
	uint64_t ns_acc, ns_start;		/* the same for its time enabled: the launcher's alone */
};

/*
 * Where this process's counts are emulated, what emulates them, for the
 * reports ("QEMU 7.2.22 user mode, x86_64, libpmu-qemu"), or NULL where
 * they are not; and an emulated counter's read path, for pmu_user_read()
 * ("emulated (QEMU ...): ...").
 */
const char *pmu__emulated(void);
const char *pmu__emu_why(void);
/* The launcher's: the run's table, made by pmu stat --emulate (its fd), whose total the events then count. */
int pmu__emu_attach(const struct pmu__emu_table *t);

/*
 * Marks c's counters that are emulated, once the events are parsed: in an
 * emulated process every core PMU event is, and all but instructions (in
 * user space) are refused with the reason. 0, or -errno with a message.
 */
int pmu__emu_plan(struct pmu__cold *c, const struct pmu_opts *o);
/* What pmu_enable(), pmu_disable() and pmu_reset() do to an emulated counter. */
void pmu__emu_enable(struct pmu__emu_ctr *e);
void pmu__emu_disable(struct pmu__emu_ctr *e);
void pmu__emu_reset(struct pmu__emu_ctr *e);
/*
 * Its count now, as a read(2) gives a counter's. It is never multiplexed:
 * its running time is its enabled time, which is 0 in the emulated program,
 * so that a read there costs a load and no clock (which a read inside a
 * region's window would count); the launcher's counts time as perf does.
 */
void pmu__emu_read(const struct pmu__emu_ctr *e, struct pmu_reading *rd);

#endif
