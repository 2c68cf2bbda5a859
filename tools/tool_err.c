/* SPDX-License-Identifier: MIT */
/* The tool's last failure, in a buffer of its own (tool_err.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmu.h"
#include "tool_err.h"

static char msg[512];	/* the size of the library's: its messages are copied whole */

int tool_err(int err, const char *fmt, ...)
{
	char buf[sizeof(msg)];	/* an argument may be tool_errmsg() itself: written apart, then copied */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(msg, buf, sizeof(msg));
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
