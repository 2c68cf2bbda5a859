/* SPDX-License-Identifier: MIT */
/*
 * Running a program under QEMU's user-mode emulation with libpmu-qemu
 * (emulate.c): for pmu emulate, and pmu stat --emulate. The program's ELF
 * machine picks qemu-x86_64, qemu-aarch64 or qemu-riscv64; the table of
 * counts is a memfd that QEMU inherits, named to the program by
 * PMU_EMULATED_FD (counters/emu_table.h).
 */
#ifndef PMU_TOOL_EMULATE_H
#define PMU_TOOL_EMULATE_H

#include <limits.h>

#include "plugin.h"

struct emu_launch {
	int fd;				/* the table's memfd, inherited by QEMU */
	struct pmu__emu_table *t;	/* mapped here: pmu stat reads the run's total */
	char qemu[PATH_MAX];		/* qemu-ARCH, found in PATH */
	char prog[PATH_MAX];		/* the program, found in PATH: QEMU does not search it */
	const char *machine;		/* QEMU's name for the program's machine: "x86_64" */
	char plugin[PATH_MAX + 16];	/* -plugin's argument: libpmu-qemu.so,fd=N */
	char **argv;			/* qemu -plugin ... CMD ARGS, for execvp() */
};

/*
 * Everything to run cmd (a NULL-terminated argv) under emulation: QEMU for
 * its machine, the plugin, the table, the environment (PMU_EMULATED_FD,
 * LD_PRELOAD handed to the program alone). 0, or -1 with a message on
 * stderr naming what is missing (who: "pmu emulate").
 */
int emu_prepare(struct emu_launch *l, char **cmd, const char *who);
void emu_free(struct emu_launch *l);

#endif
