/* SPDX-License-Identifier: MIT */
/* The tool's last failure, in a buffer of its own (tool_err.h). */
#include <stdarg.h>
#include <stdio.h>

#include "pmu.h"
#include "tool_err.h"

static char msg[512];	/* the size of the library's: its messages are copied whole */

int tool_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err;
}

int tool_err_lib(int r)
{
	if (r < 0)
		snprintf(msg, sizeof(msg), "%s", pmu_errmsg());
	return r;
}

const char *tool_errmsg(void)
{
	return msg;
}
