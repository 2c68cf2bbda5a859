/* SPDX-License-Identifier: MIT */
/* The tool's last failure, in words. */
#include <stdarg.h>
#include <stdio.h>

#include "err.h"

static char msg[512];

int tool_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *tool_errmsg(void)
{
	return msg;
}
