/* SPDX-License-Identifier: MIT */
/* The thread's explanation of its last failure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"

static __thread char msg[512];

int pmu__err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err;
}

void pmu__err_append(const char *fmt, ...)
{
	size_t n = strlen(msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
}

int pmu__check_size(const char *who, const char *what, const void *p, size_t size, size_t first,
		    size_t known, int check_tail)
{
	const unsigned char *b = p;

	if (size == 0)
		return pmu__err(-EINVAL, "%s: %s has size 0: set size to sizeof(%s)", who, what, what);
	if (size < first)
		return pmu__err(-EINVAL, "%s: %s of size %zu is smaller than any libpmu's (%zu bytes): "
				"set size to sizeof(%s)", who, what, size, first, what);
	if (size > PMU_SIZE_MAX)
		return pmu__err(-E2BIG, "%s: %s of size %zu cannot be (more than %d bytes): set size to "
				"sizeof(%s)", who, what, size, PMU_SIZE_MAX, what);
	for (size_t i = known; check_tail && i < size; i++)
		if (b[i])
			return pmu__err(-E2BIG, "%s: %s of size %zu sets byte %zu, past the %zu bytes libpmu %s "
					"knows: a newer libpmu's field, which this one cannot honour", who, what,
					size, i, known, pmu_version());
	return 0;
}

void pmu__err_clear(void)
{
	msg[0] = '\0';
}

PMU_API const char *pmu_errmsg(void)
{
	return msg;
}

#define PMU_STR(x) #x
#define PMU_XSTR(x) PMU_STR(x)

PMU_API const char *pmu_version(void)
{
	return PMU_XSTR(PMU_VERSION_MAJOR) "." PMU_XSTR(PMU_VERSION_MINOR) "." PMU_XSTR(PMU_VERSION_PATCH);
}

PMU_API unsigned pmu_version_major(void)
{
	return PMU_VERSION_MAJOR;
}

PMU_API unsigned pmu_version_minor(void)
{
	return PMU_VERSION_MINOR;
}

PMU_API unsigned pmu_version_patch(void)
{
	return PMU_VERSION_PATCH;
}
