/* SPDX-License-Identifier: MIT */
/*
 * _exit and _Exit in the shared library only, exported under the C library's own
 * version of them (the Makefile adds that node to the version script): a program's
 * call binds here when libpmu.so is preloaded or linked, so that zero-code mode
 * writes its report before the process ends. Same system call as the C library's.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "base/internal.h"

void pmu__zero_quick_exit(void);

PMU_API void _exit(int status)
{
	pmu__zero_quick_exit();
	for (;;)
		syscall(SYS_exit_group, status);
}

PMU_API void _Exit(int status) __attribute__((alias("_exit")));
