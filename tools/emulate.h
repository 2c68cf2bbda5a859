/* SPDX-License-Identifier: MIT */
/*
 * Running a program under emulation (emulate.c), for pmu emulate and pmu
 * stat --emulate, by one of two backends: QEMU's user-mode emulation with
 * libpmu-qemu (the program's ELF machine picks qemu-x86_64, qemu-aarch64 or
 * qemu-riscv64), or Valgrind with libpmu-valgrind (programs of this
 * machine). Either counts into one table (counters/emu_table.h), a memfd
 * the backend inherits, named to the program by PMU_EMULATED_FD. Before the
 * program runs, the backend is checked to count: where it cannot, no count
 * is made up, and the message says why and what to install instead.
 */
#ifndef PMU_TOOL_EMULATE_H
#define PMU_TOOL_EMULATE_H

#include <limits.h>

#include "layers.h"

struct emu_launch {
	int fd;				/* the table's memfd, inherited by the backend */
	struct pmu__emu_table *t;	/* mapped here: pmu stat reads the run's total */
	char exe[PATH_MAX];		/* qemu-ARCH found in PATH, or libpmu-valgrind */
	char prog[PATH_MAX];		/* the program, found in PATH: the backends do not search it */
	const char *machine;		/* QEMU's name for the program's machine: "x86_64" */
	char arg[PATH_MAX + 16];	/* -plugin's argument (libpmu-qemu.so,fd=N), or --pmu-fd=N */
	char **argv;			/* the backend's command line, for execv() */
};

/*
 * Everything to run cmd (a NULL-terminated argv) under emulation by
 * backend ("qemu", "valgrind", or NULL: QEMU where it counts, else Valgrind), the
 * backend checked to count. 0, or -1 with a message on stderr naming what
 * is missing and what to install (who: "pmu emulate").
 */
int emu_prepare(struct emu_launch *l, char **cmd, const char *backend, const char *who);
void emu_free(struct emu_launch *l);

/* pmu check: each backend, whether it counts this machine's programs here, and why not. */
void emu_backends(void);

#endif
