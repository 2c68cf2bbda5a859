/* SPDX-License-Identifier: MIT */
/* The thread's explanation of its last failure. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

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
