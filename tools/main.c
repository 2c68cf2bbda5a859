/* SPDX-License-Identifier: MIT */
/* pmu: what this machine's counters allow, and counting with libpmu. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu.h"
#include "layers.h"
#include "cmds.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "check", cmd_check, "[-e EVENTS]: what this machine allows: PMUs, sysctls, read paths, cost" },
	{ "list", cmd_list, "[--json] [--sysfs DIR] [GLOB]: the events this machine knows, by PMU" },
	{ "encode", cmd_encode, "[--sysfs DIR] EVENT...: the perf_event_attr of each event" },
	{ "stat", cmd_stat, "[-e EVENTS]... [-x SEP | -j] [-o FILE [--append]] [-r N] [--] CMD [ARGS...]: count a command" },
	{ "report", cmd_report, "merge [-o FILE] [--format F] REPORT.json...: merge the region reports of many processes" },
	{ "emulate", cmd_emulate, "[--] CMD [ARGS...]: run CMD under QEMU, its instructions counted exactly (no PMU needed)" },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-7s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "  version the library's version\n");
	return f == stdout ? 0 : TOOL_USAGE;
}

int main(int argc, char **argv)
{
	/* whole lines: a note on stderr never lands inside a line of stdout sent to the same file */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* pmu help CMD: the same as pmu CMD --help */
		char *args[] = { argv[2], "--help", NULL };

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[2], cmds[i].name))
				return cmds[i].run(2, args);
		fprintf(stderr, "pmu: unknown command '%s'\n", argv[2]);
		return usage(stderr);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("pmu %s\n", pmu_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "pmu: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
