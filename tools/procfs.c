/* SPDX-License-Identifier: MIT */
/*
 * The threads of a process and the online CPUs, for pmu stat's targets:
 * read with the library's bounded file readers (sysfs.h).
 */
#include <stdio.h>
#include <string.h>

#include "layers.h"
#include "procfs.h"

static bool all_digits(const char *s)
{
	return *s && !s[strspn(s, "0123456789")];
}

int pmu__task_threads(long pid, char ***tids, size_t *n)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	return pmu__dir_names(path, all_digits, tids, n);
}

int pmu__task_comm(long tid, char *buf, size_t size)
{
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/proc/%ld/comm", tid);
	r = pmu__read_file(path, buf, size);
	return r < 0 ? r : 0;
}

bool pmu__task_alive(long tid)
{
	char path[64], buf[1024];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", tid);
	if (pmu__read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');	/* "pid (comm) S ...": the state follows the name */
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

int pmu__online_cpus(char *buf, size_t size)
{
	int r = pmu__read_file("/sys/devices/system/cpu/online", buf, size);

	return r < 0 ? r : 0;
}
