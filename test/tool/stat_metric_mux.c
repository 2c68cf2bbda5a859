/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -M when the kernel multiplexed: a metric is computed from the
 * scaled counts (not the raw ones), each of its events' lines shows the
 * share of time it ran, as perf stat's; a metric whose event was not
 * counted is left blank. The tool's printing (stat_print.o, linked) is
 * given the figures, since this machine may have no PMU to multiplex.
 */
#include <stdio.h>
#include <string.h>

#include "stat.h"
#include "test.h"

#define SET ((struct pmu_set *)&dummy)
static int dummy;

static char *print(struct ev *ev, unsigned n, struct stat_metric *met, unsigned nmet, const char *sep, bool json)
{
	static char *cmd[] = { "prog", NULL };
	struct stat_opts so = { .sep = sep, .json = json, .met = met, .nmet = nmet };
	struct rusage ru = { 0 };
	char *buf = NULL;
	size_t len = 0;

	so.out = open_memstream(&buf, &len);
	if (!so.out)
		return NULL;
	stat_print(&so, ev, n, cmd, 0.5, &ru);
	fclose(so.out);
	return buf;
}

int main(void)
{
	/* raw counts 1000 and 500, counted half and a quarter of the time: scaled 2000 and 2000 */
	struct ev ev[] = {
		{ .name = "r1234", .set = SET, .counted = true, .value = 2000,
		  .rd = { .value = 1000, .enabled = 2000, .running = 1000 } },
		{ .name = "r5678", .set = SET, .counted = true, .value = 2000,
		  .rd = { .value = 500, .enabled = 2000, .running = 500 } },
	};
	struct pmu__pj_metric tm = { .d = { "ratio", "r1234 / r5678 * 3", NULL, NULL, "a ratio" } };
	struct pmu__pj_metric pct = { .d = { "share", "r5678 / r1234", NULL, "100%", "a share" } };
	const char *ids[] = { "r1234", "r5678" }, *ids2[] = { "r5678", "r1234" };
	unsigned at[] = { 0, 1 }, at2[] = { 1, 0 };
	struct stat_metric met[] = {
		{ .m = &tm, .nids = 2, .ids = ids, .ev = at, .leader = 0 },
		{ .m = &pct, .nids = 2, .ids = ids2, .ev = at2, .leader = 0 },
	};
	char *out;

	CHECK(pmu__expr_parse(tm.d.expr, &tm.e) == 0);
	CHECK(pmu__expr_parse(pct.d.expr, &pct.e) == 0);
	/*
	 * table: the first metric on the event's line (a raw event has no
	 * comment of its own), the next on a line of its own (perf's 49 blanks),
	 * the running share at the end of the last
	 */
	out = print(ev, 2, met, 2, NULL, false);
	CHECK(out);
	CHECK_MSG(strstr(out, "              2000      r1234                            #     3.00 ratio"
			 "                  \n"
			 "                                                  #    100.0 %  share                 (50.00%)\n"),
		  "%s", out);
	CHECK_MSG(strstr(out, "              2000      r5678                                                                (25.00%)\n"), "%s", out);
	free(out);
	/* -x: the value from the scaled counts, perf's fields */
	out = print(ev, 2, met, 2, ",", false);
	CHECK(out);
	CHECK_MSG(strstr(out, "2000,,r1234,1000,50.00,3.00,ratio\n,,,,100.0,%  share\n"), "%s", out);
	free(out);
	out = print(ev, 2, met, 1, NULL, true);
	CHECK(out);
	CHECK_MSG(strstr(out, "\"pcnt-running\" : 50.00, \"metric-value\" : 3.000000, \"metric-unit\" : \"ratio\"}"),
		  "%s", out);
	free(out);
	/* a second metric that divides by zero: blank, on the line before (perf's print_metric_std) */
	struct pmu__pj_metric zero = { .d = { "zero", "r5678 / (r1234 - r1234)", NULL, NULL, "no value" } };

	CHECK(pmu__expr_parse(zero.d.expr, &zero.e) == 0);
	met[1].m = &zero;
	out = print(ev, 2, met, 2, NULL, false);
	CHECK(out);
	CHECK_MSG(strstr(out, "#     3.00 ratio                  " "                                   " "  (50.00%)\n"),
		  "%s", out);
	free(out);
	pmu__expr_free(zero.e);
	met[1].m = &pct;
	/* an event not counted: its metric is blank */
	ev[1].counted = false;
	out = print(ev, 2, met, 1, ",", false);
	CHECK(out);
	CHECK_MSG(strstr(out, "2000,,r1234,1000,50.00,,\n"), "%s", out);
	free(out);
	pmu__expr_free(tm.e);
	pmu__expr_free(pct.e);
	T_DONE();
}
