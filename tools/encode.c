/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include "cmds.h"

int cmd_encode(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmu encode: not available yet\n");
	return 2;
}
