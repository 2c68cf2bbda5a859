/* SPDX-License-Identifier: MIT */
/* The environment, as the library reads it: never under AT_SECURE (internal.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "base/escape.h"
#include "base/internal.h"

bool pmu__secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

const char *pmu__getenv(const char *name)
{
	return pmu__secure() ? NULL : getenv(name);
}

bool pmu__env_switch(const char *name, bool *said, const char *off)
{
	const char *v = pmu__getenv(name);

	if (!v || !*v || !strcmp(v, "0"))
		return false;
	if (!strcmp(v, "1"))
		return true;
	if (PMU_ONCE(*said))
		pmu__print(PMU_PRINT_WARN, "libpmu: %s=%s: neither 1 (on) nor 0 (off): %s\n", name,
			   pmu__show(&(struct pmu__shown){ 0 }, v, strlen(v)), off);
	return false;
}
