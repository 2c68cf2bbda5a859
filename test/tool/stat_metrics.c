/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's derived metrics come from the table the region report uses
 * (src/metrics.c): IPC, branch-miss and GHz under arm64's sysfs names too.
 * The tool's printing (stat_print.o, linked: see the Makefile) is given
 * figures, since this machine may have no PMU to count them.
 */
#include <stdio.h>
#include <string.h>

#include "stat.h"	/* the tool's (its archive links stat_print.o) */
#include "test.h"

#define SET ((struct pmu_set *)&dummy)
static int dummy;

static char *print_to_string(struct ev *ev, unsigned n, const char *sep)
{
	static char *cmd[] = { "prog", NULL };
	struct stat_opts so = { .sep = sep };
	struct rusage ru = { 0 };
	char *buf = NULL;
	size_t len = 0;

	so.out = open_memstream(&buf, &len);
	if (!so.out)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		ev[i].set = SET;
		ev[i].counted = true;
		ev[i].rd.enabled = ev[i].rd.running = 1000;
	}
	stat_print(&so, ev, n, cmd, 0.5, &ru);
	fclose(so.out);
	return buf;
}

/* The line of event name in out (NUL-ended copy), or "". */
static const char *line_of(const char *out, const char *name)
{
	static char line[512];
	const char *p = strstr(out, name), *b, *e;

	if (!p)
		return "";
	for (b = p; b > out && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(e ? e - b : (long)strlen(b)), b);
	return line;
}

int main(void)
{
	struct ev arm[] = {
		{ .name = "task-clock", .value = 2e6 },
		{ .name = "cpu_cycles", .value = 1000 },
		{ .name = "inst_retired", .value = 2500 },
		{ .name = "br_retired", .value = 400 },
		{ .name = "br_mis_pred_retired", .value = 10 },
	};
	struct ev wrapped[] = {
		{ .name = "armv8_pmuv3_0/cpu_cycles/", .value = 1000 },
		{ .name = "armv8_pmuv3_0/inst_retired/u", .value = 500 },
	};
	struct ev generic[] = {
		{ .name = "cycles", .value = 1000 },
		{ .name = "instructions", .value = 3000 },
		{ .name = "L1-dcache-loads", .value = 200 },
		{ .name = "L1-dcache-load-misses", .value = 50 },
	};
	char *out;

	out = print_to_string(arm, 5, ",");
	CHECK(out);
	CHECK_MSG(strstr(line_of(out, "inst_retired"), ",2.500,insn per cycle"), "%s", out);
	CHECK_MSG(strstr(line_of(out, "br_mis_pred_retired"), ",2.500,of all branches"), "%s", out);
	CHECK_MSG(strstr(line_of(out, "cpu_cycles"), ",0.001,GHz"), "%s", out);
	free(out);

	out = print_to_string(wrapped, 2, NULL);
	CHECK(out);
	CHECK_MSG(strstr(line_of(out, "inst_retired/u"), "#    0.500 insn per cycle"), "%s", out);
	free(out);

	out = print_to_string(generic, 4, ",");
	CHECK(out);
	CHECK_MSG(strstr(line_of(out, "instructions"), ",3.000,insn per cycle"), "%s", out);
	CHECK_MSG(strstr(line_of(out, "L1-dcache-load-misses"), ",25.000,of all L1-dcache accesses"), "%s", out);
	free(out);
	T_DONE();
}
