/* SPDX-License-Identifier: MIT */
/*
 * Metrics on QEMU's PMU, through pmu stat as a user runs it, over this
 * program spinning a loop of known length:
 * - under -icount shift=0, IPC and CPI exactly. QEMU's cycle counter is its
 *   virtual clock at 1 GHz, which -icount shift=0 advances by 1 ns an
 *   instruction, so a task's cycles are its instructions to the count: the
 *   metrics printed are the printed counts' ratio (the built-in expressions
 *   evaluated on them give the same figures) and that ratio is 1.
 * - everywhere, Arm's SBSA TopdownL1 (--topdown, -M TopdownL1): QEMU's
 *   caps/slots is 0 and its PMCEID announces none of STALL_SLOT*, OP_*, which
 *   open by number and count 0 while cpu_cycles counts; the metrics are left
 *   blank, with the notes that name caps/slots, never a number.
 */
#include "a64.h"
#include "layers.h"
#include "metrics/metric_use.h"	/* pmu__metric_builtin() */
#include "tool_run.h"

#define SPIN 1000000	/* the loop: 2 * SPIN + 1 instructions */

static char self[PATH_MAX], pmu_dir[512];
static bool icount;

/* The line of text holding key, into line (its newline cut); false when none. */
static bool line_with(const char *text, const char *key, char *line, size_t size)
{
	const char *k = strstr(text, key), *b, *e;

	if (!k)
		return false;
	for (b = k; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(k, '\n');
	snprintf(line, size, "%.*s", (int)(e ? e - b : (ptrdiff_t)strlen(b)), b);
	return true;
}

/* A -j line's quoted counter value of event name ("\"counter-value\" : \"123.000000\""), or -1. */
static double json_count(const char *text, const char *name)
{
	char key[128], line[1024];
	double v;

	snprintf(key, sizeof(key), "\"event\" : \"%s\"", name);
	if (!line_with(text, key, line, sizeof(line)) ||
	    sscanf(line, "{\"counter-value\" : \"%lf\"", &v) != 1)
		return -1;
	return v;
}

/* The text of the -j metric-value before "metric-unit" : "unit", into buf; false when none. */
static bool json_metric(const char *text, const char *unit, char *buf, size_t size)
{
	char key[128], line[1024], *p;

	snprintf(key, sizeof(key), "\"metric-unit\" : \"%s\"", unit);
	if (!line_with(text, key, line, sizeof(line)) || !(p = strstr(line, key)))
		return false;
	*p = '\0';
	if (!(p = strrchr(line, ':')))	/* "metric-value" : 1.000000, */
		return false;
	snprintf(buf, size, "%.*s", (int)strcspn(p + 2, ","), p + 2);
	return true;
}

/* The counts the built-in expressions are evaluated on. */
static double count_ins, count_cyc;

static int value(void *ctx, const char *id, bool sc, double *out)
{
	(void)ctx;
	if (strcmp(id, "instructions") && strcmp(id, "cycles"))
		return -ENOENT;
	*out = sc ? 1 : !strcmp(id, "cycles") ? count_cyc : count_ins;
	return 0;
}

/* Built-in metric name evaluated on the counts of instructions and cycles, as "%f" prints it. */
static void builtin_value(const char *name, double ins, double cyc, char *buf, size_t size)
{
	const struct pmu__metric_def *d = pmu__metric_builtin(name);
	const struct pmu__expr_env env = { value, NULL, NULL, NULL };
	struct pmu__expr *x = NULL;
	double v;

	count_ins = ins;
	count_cyc = cyc;
	snprintf(buf, size, "(no %s)", name);
	if (!d || pmu__expr_parse(d->expr, &x) < 0)
		return;
	if (pmu__expr_eval(x, &env, &v) == 0)
		snprintf(buf, size, "%f", v);
	pmu__expr_free(x);
}

/* IPC and CPI under -icount: the printed figures against the printed counts, in -j, -x and the table. */
static void ipc_cpi(void)
{
	char ipc[64], cpi[64], want[64], want2[64], lines[1024];
	double ins, cyc;
	uint64_t i, c, ri, rc;
	int n;

	CHECK_MSG(run("", tool, "stat -M IPC,CPI -j -- %s spin", self) == 0, "stat -M IPC,CPI -j:\n%s", err);
	ins = json_count(err, "instructions");
	cyc = json_count(err, "cycles");
	printf("-M IPC,CPI -j over a loop of %d instructions:\n%s", 2 * SPIN + 1, err);
	/* icount's truth: the task's cycles are its instructions, the loop's at least */
	CHECK_MSG(ins >= 2 * SPIN + 1 && ins == cyc, "instructions %.0f, cycles %.0f (want equal, >= %d)", ins,
		  cyc, 2 * SPIN + 1);
	CHECK_MSG(json_metric(err, "insn per cycle  IPC", ipc, sizeof(ipc)) &&
		  json_metric(err, "cycles per insn  CPI", cpi, sizeof(cpi)), "no IPC or CPI figure:\n%s", err);
	/* the printed figures: the counts' ratios as the tool computes them, the built-in expressions' values */
	snprintf(want, sizeof(want), "%f", ins / cyc);
	builtin_value("IPC", ins, cyc, want2, sizeof(want2));
	CHECK_MSG(!strcmp(ipc, want) && !strcmp(ipc, want2) && !strcmp(ipc, "1.000000"),
		  "IPC %s for %.0f / %.0f (want %s, the expression gives %s)", ipc, ins, cyc, want, want2);
	snprintf(want, sizeof(want), "%f", cyc / ins);
	builtin_value("CPI", ins, cyc, want2, sizeof(want2));
	CHECK_MSG(!strcmp(cpi, want) && !strcmp(cpi, want2) && !strcmp(cpi, "1.000000"),
		  "CPI %s for %.0f / %.0f (want %s, the expression gives %s)", cpi, cyc, ins, want, want2);

	/* -x: perf 6.1's fields, IPC on a line of its own ("%8.1f" of its ScaleUnit, trimmed) */
	CHECK_MSG(run("", tool, "stat -M IPC,CPI -x, -- %s spin", self) == 0, "stat -M IPC,CPI -x,:\n%s", err);
	n = sscanf(err, "%" SCNu64 ",,instructions,%" SCNu64 ",100.00,1.000,insn per cycle\n,,,,1.0,insn per cycle  IPC\n"
		   "%" SCNu64 ",,cycles,%" SCNu64 ",", &i, &ri, &c, &rc);
	CHECK_MSG(n == 4 && i == c && i >= 2 * SPIN + 1, "-x: %d fields, instructions %" PRIu64 ", cycles %" PRIu64
		  ":\n%s", n, i, c, err);
	snprintf(lines, sizeof(lines), "%" PRIu64 ",,instructions,%" PRIu64 ",100.00,%.3f,insn per cycle\n"
		 ",,,,%.1f,insn per cycle  IPC\n%" PRIu64 ",,cycles,%" PRIu64 ",100.00,%.1f,cycles per insn  CPI\n",
		 i, ri, (double)i / (double)c, (double)i / (double)c, c, rc, (double)c / (double)i);
	CHECK_MSG(!strcmp(err, lines), "-x printed:\n%s\nwant:\n%s", err, lines);

	/* the table: perf 6.1's columns, a metric's figure after "#" */
	CHECK_MSG(run("", tool, "stat -M IPC,CPI -- %s spin", self) == 0, "stat -M IPC,CPI:\n%s", err);
	n = sscanf(err, "\n Performance counter stats for '%*[^']':\n\n%" SCNu64 " instructions", &i);
	c = 0;
	if (n == 1 && line_with(err, " cycles ", lines, sizeof(lines)))
		sscanf(lines, "%" SCNu64, &c);
	CHECK_MSG(n == 1 && i == c, "the table: instructions %" PRIu64 ", cycles %" PRIu64 ":\n%s", i, c, err);
	snprintf(lines, sizeof(lines),
		 "%18" PRIu64 "      instructions                     #    1.000 insn per cycle         \n"
		 "                                                  #      1.0 insn per cycle  IPC    \n"
		 "%18" PRIu64 "      cycles                           #      1.0 cycles per insn  CPI   \n",
		 i, c);
	CHECK_MSG(strstr(err, lines), "the table printed:\n%s\nwant the lines:\n%s", err, lines);
}

/* "is 0x00000000 in DIR" or "is not in DIR": what the note says of caps/slots. */
static bool slots_said(char *buf, size_t size)
{
	char path[1024], v[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/caps/slots", pmu_dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(buf, size, "is not in %s", pmu_dir);
		return true;
	}
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	v[strcspn(v, "\n")] = '\0';
	snprintf(buf, size, "is %s in %s", v, pmu_dir);
	return strtoul(v, NULL, 0) == 0;
}

/* The notes of a run whose metrics (", "-separated) need #slots and events (those sysfs lacks): into buf. */
static void notes(char *buf, size_t size, const char *metrics, const char *const *events, const char *slots)
{
	char listed[512] = "";
	size_t len = 0, n = 0;
	bool many;

	for (const char *const *e = events; *e; e++) {
		char path[PATH_MAX + 256];

		snprintf(path, sizeof(path), "%s/events/%s", pmu_dir, *e);
		if (access(path, F_OK) == 0)
			continue;
		len += (size_t)snprintf(listed + len, sizeof(listed) - len, "%s%s", n++ ? ", " : "", *e);
	}
	many = n > 1;
	len = 0;
	buf[0] = '\0';
	if (n)
		len = (size_t)snprintf(buf, size, "pmu stat: %s: not among %s's events (its PMCEID does not announce "
				       "%s): opened by %s Arm architected number%s; a PMU that does not implement %s "
				       "counts 0\n", listed, a64_pmu_name(), many ? "them" : "it",
				       many ? "their" : "its", many ? "s" : "", many ? "them" : "it");
	many = strchr(metrics, ',') != NULL;
	snprintf(buf + len, size - len, "pmu stat: %s: not computable here: #slots, the core PMU's caps/slots, %s "
		 "(the PMU does not say how many slots a cycle has): %s events are counted, the metric%s left "
		 "blank\n", metrics, slots, many ? "their" : "its", many ? "s" : "");
}

static const char *const sbsa[] = { "stall_slot_frontend", "stall_slot_backend", "op_retired", "op_spec",
				    "stall_slot", NULL };
#define SBSA_L1 "frontend_bound, backend_bound, bad_speculation, retiring"

/* SBSA's TopdownL1 where caps/slots says nothing: counted, figures blank, the notes saying why. */
static void topdown(void)
{
	static const char *const names[] = { "stall_slot_frontend", "cpu_cycles", "stall_slot_backend",
					     "op_retired", NULL, "op_spec", "stall_slot" };
	char slots[1024], want[PATH_MAX + 4096], line[512];
	const char *p;
	uint64_t ins = 0, cyc = 0;

	if (!slots_said(slots, sizeof(slots)))
		T_SKIP("caps/slots %s: not QEMU's PMU, which gives none", slots);
	notes(want, sizeof(want), SBSA_L1, sbsa, slots);

	/* -x: every event's line, the metrics' fields empty (bad_speculation's and retiring's both on op_retired's) */
	CHECK_MSG(run("", tool, "stat -M TopdownL1 -x, %s -- %s spin", icount ? "-e instructions" : "", self) == 0,
		  "stat -M TopdownL1 -x,:\n%s", err);
	printf("-M TopdownL1 -x,%s:\n%s", icount ? " -e instructions" : "", err);
	CHECK_MSG(!strncmp(err, want, strlen(want)), "the notes:\n%s\nwant:\n%s", err, want);
	p = err + strlen(want);
	if (icount) {
		CHECK_MSG(sscanf(p, "%" SCNu64 ",,instructions,", &ins) == 1, "no instructions line:\n%s", p);
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
	}
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		char name[64];
		uint64_t v = UINT64_MAX;
		int end = 0;

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
		if (!names[k]) {
			CHECK_MSG(!strcmp(line, ",,,,,"), "the second metric of op_retired's line: \"%s\"", line);
			continue;
		}
		CHECK_MSG(sscanf(line, "%" SCNu64 ",,%63[^,],%*[0-9],100.00,,%n", &v, name, &end) == 2 &&
			  !line[end] && !strcmp(name, names[k]), "line %zu: \"%s\", want %s's with blank metrics",
			  k, line, names[k]);
		if (!strcmp(names[k], "cpu_cycles"))
			cyc = v;
		else	/* QEMU counts none of these */
			CHECK_MSG(v == 0, "%s counted %" PRIu64 " (QEMU does not count it)", names[k], v);
	}
	CHECK_MSG(!*p, "more than the events' lines: \"%s\"", p);
	/* QEMU counts cpu_cycles; under icount as it counts instructions */
	CHECK_MSG(cyc > 0 && (!icount || cyc == ins), "cpu_cycles %" PRIu64 ", instructions %" PRIu64, cyc, ins);

	/* --topdown: perf's --metric-only columns, all four blank */
	CHECK_MSG(run("", tool, "stat --topdown -- %s spin", self) == 0, "stat --topdown:\n%s", err);
	printf("--topdown:\n%s", err);
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "\n Performance counter stats for '%s spin':\n\n"
		 "   %%  frontend_bound     %%  backend_bound   %%  bad_speculation          %%  retiring \n"
		 "%84s\n\n", self, "");
	CHECK_MSG(!strncmp(err, want, strlen(want)), "--topdown printed:\n%s\nwant first:\n%s", err, want);

	/* -j: perf's blank figure ("metric-value" : 0.000000, "metric-unit" : ""), no unit of a value */
	CHECK_MSG(run("", tool, "stat -M TopdownL1 -j -- %s spin", self) == 0, "stat -M TopdownL1 -j:\n%s", err);
	for (size_t k = 0; k < 4; k++) {
		static const char *const m[] = { "frontend_bound", "backend_bound", "bad_speculation", "retiring" };

		snprintf(line, sizeof(line), "%%  %s", m[k]);
		CHECK_MSG(!strstr(err, line), "-j gives %s a figure:\n%s", m[k], err);
	}
	CHECK_MSG(strstr(err, "\"event\" : \"stall_slot_frontend\", \"event-runtime\" : ") &&
		  strstr(err, "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n{\"metric-value\" : 0.000000, "
			 "\"metric-unit\" : \"\"}\n"), "-j's blank figures:\n%s", err);

	/* one metric: the notes in the singular */
	notes(want, sizeof(want), "frontend_bound", (const char *const[]){ "stall_slot_frontend", NULL }, slots);
	CHECK_MSG(run("", tool, "stat -M frontend_bound -x, -- %s spin", self) == 0, "stat -M frontend_bound:\n%s",
		  err);
	CHECK_MSG(!strncmp(err, want, strlen(want)), "-M frontend_bound's notes:\n%s\nwant:\n%s", err, want);
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "spin")) {
		guest_spin(SPIN);
		return 0;
	}
	a64_require();
	if (find() < 0)
		T_SKIP("no pmu tool next to the tests' directory");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		T_SKIP("no /proc/self/exe");
	self[n] = '\0';
	snprintf(pmu_dir, sizeof(pmu_dir), "/sys/bus/event_source/devices/%s", a64_pmu_name());
	icount = guest_icount();
	if (icount)
		ipc_cpi();
	else
		printf("IPC and CPI are checked under -icount only (the *-icount configurations): without it QEMU "
		       "counts no instructions\n");
	topdown();
	T_DONE();
}
