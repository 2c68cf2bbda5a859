/* SPDX-License-Identifier: MIT */
/* The environment, as the library reads it: never under AT_SECURE (internal.h). */
#include <stdlib.h>
#include <sys/auxv.h>

#include "base/internal.h"

bool pmu__secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

const char *pmu__getenv(const char *name)
{
	return pmu__secure() ? NULL : getenv(name);
}
