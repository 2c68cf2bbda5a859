/* SPDX-License-Identifier: MIT */
/* The descriptor count of the tests and the stress benchmark (no test counters with it). */
#ifndef PMU_TEST_FDS_H
#define PMU_TEST_FDS_H

#include <dirent.h>

/* Open file descriptors of this process. */
static inline int t_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own descriptor */
}

#endif
