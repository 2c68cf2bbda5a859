/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include "cmds.h"

int cmd_stat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmu stat: not available yet\n");
	return 2;
}
