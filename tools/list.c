/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include "cmds.h"

int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmu list: not available yet\n");
	return 2;
}
