/* SPDX-License-Identifier: MIT */
/* pmu encode and pmu list against the fixture trees: exact output, messages, exit status. */
#include "test.h"
#include "tool_run.h"

/* Runs "pmu ARGS" (ARGS already shell-quoted); returns the exit status. */
static int run_tool(const char *args)
{
	return run("", tool, "%s", args);
}

int main(void)
{
	char args[2 * PATH_MAX + 512];
	int st;

	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");

	snprintf(args, sizeof(args), "encode --sysfs %s/intel_hybrid cycles 'cpu_core/event=0x3c,umask=1/k' "
		 "task-clock", fix);
	st = run_tool(args);
	CHECK_MSG(st == 0, "exit %d: %s", st, err);
	CHECK_MSG(!strcmp(out,
		"cycles pmu=cpu_core type=0 config=0x400000000 config1=0x0 config2=0x0 config3=0x0 "
		"exclude_user=0 exclude_kernel=1 exclude_hv=1\n"
		"cycles pmu=cpu_atom type=0 config=0xa00000000 config1=0x0 config2=0x0 config3=0x0 "
		"exclude_user=0 exclude_kernel=1 exclude_hv=1\n"
		"cpu_core/event=0x3c,umask=1/k pmu=cpu_core type=4 config=0x13c config1=0x0 config2=0x0 config3=0x0 "
		"exclude_user=1 exclude_kernel=0 exclude_hv=1\n"
		"task-clock pmu=software type=1 config=0x1 config1=0x0 config2=0x0 config3=0x0 "
		"exclude_user=0 exclude_kernel=1 exclude_hv=1\n"), "got:\n%s", out);
	CHECK(err[0] == '\0');

	/* a comma list in one argument, and the arm64 user-access bits */
	snprintf(args, sizeof(args), "encode --sysfs=%s/arm64 'cycles,armv8_pmuv3_0/event=0x8,long=0/u'", fix);
	st = run_tool(args);
	CHECK(st == 0);
	CHECK_MSG(!strcmp(out,
		"cycles pmu=armv8_pmuv3_0 type=0 config=0x0 config1=0x3 config2=0x0 config3=0x0 "
		"exclude_user=0 exclude_kernel=1 exclude_hv=1\n"
		"armv8_pmuv3_0/event=0x8,long=0/u pmu=armv8_pmuv3_0 type=8 config=0x8 config1=0x2 config2=0x0 "
		"config3=0x0 exclude_user=0 exclude_kernel=1 exclude_hv=1\n"), "got:\n%s", out);

	/* errors: on stderr, naming the event; good events still printed; exit 1 */
	snprintf(args, sizeof(args), "encode --sysfs %s/amd_zen cyclez 'cpu/event=0x1000/' instructions", fix);
	st = run_tool(args);
	CHECK(st == 1);
	CHECK_MSG(strstr(err, "cyclez: unknown event") && strstr(err, "did you mean cycles"), "%s", err);
	CHECK_MSG(strstr(err, "cpu/event=0x1000/: value 0x1000 is wider than term 'event' of PMU cpu (12 bits"),
		  "%s", err);
	CHECK(!strncmp(out, "instructions pmu=cpu type=0 config=0x1 ", 39));
	CHECK(run_tool("encode") == 129);
	CHECK(run_tool("encode --bogus cycles") == 129);
	snprintf(args, sizeof(args), "encode --sysfs %s/intel ',,'", fix);
	CHECK(run_tool(args) == 1 && strstr(err, "empty event"));

	/* list: text, glob, JSON */
	snprintf(args, sizeof(args), "list --sysfs %s/intel", fix);
	CHECK(run_tool(args) == 0);
	CHECK(strstr(out, "hardware events:") && strstr(out, "L1-dcache-load-misses") &&
	      strstr(out, "task-clock") && strstr(out, "PMU cpu (type 4, core):"));
	CHECK(strstr(out, "cpu/mem-loads/") && strstr(out, "event=0xcd,umask=0x1,ldlat=3"));
	/* an uncore family once, as perf names it */
	CHECK(strstr(out, "PMU uncore_imc (2 instances, uncore_imc_0 to uncore_imc_1, counted together):\n") &&
	      strstr(out, "  uncore_imc/cas_count_read/ ") && !strstr(out, "uncore_imc_1/") &&
	      strstr(out, "(scale 6.103515625e-5, unit MiB)"));
	CHECK(strstr(out, "frontend=config1:0-23"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel 'topdown-*'", fix);
	CHECK(run_tool(args) == 0);
	CHECK(strstr(out, "cpu/topdown-total-slots/") && strstr(out, "(scale 2)") && !strstr(out, "cycles"));
	snprintf(args, sizeof(args), "list --sysfs %s/amd_zen amd_df", fix);
	CHECK(run_tool(args) == 0 && strstr(out, "event=config:0-7,32-35,59-60"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel_hybrid", fix);
	CHECK(run_tool(args) == 0 && strstr(out, "every core PMU (cpu_core, cpu_atom)"));
	/* perf list's keywords: one kind of event each */
	snprintf(args, sizeof(args), "list --sysfs %s/intel hw", fix);
	CHECK(run_tool(args) == 0 && strstr(out, "hardware events:") && strstr(out, "  cycles ") &&
	      !strstr(out, "task-clock") && !strstr(out, "L1-dcache") && !strstr(out, "PMU cpu"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel sw", fix);
	CHECK(run_tool(args) == 0 && strstr(out, "task-clock") && !strstr(out, "  cycles ") && !strstr(out, "PMU "));
	snprintf(args, sizeof(args), "list --sysfs %s/intel cache", fix);
	CHECK(run_tool(args) == 0 && strstr(out, "L1-dcache-load-misses") && !strstr(out, "task-clock") &&
	      !strstr(out, "PMU "));
	snprintf(args, sizeof(args), "list --sysfs %s/intel pmu", fix);
	CHECK(run_tool(args) == 0 && strstr(out, "cpu/mem-loads/") && strstr(out, "PMU cpu (type 4, core):") &&
	      !strstr(out, "task-clock") && !strstr(out, "hardware events:"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel tracepoint", fix);
	CHECK(run_tool(args) == 1 && strstr(err, "PMU_TRACEFS=DIR"));
	snprintf(args, sizeof(args), "list --sysfs %s/arm64_big_little --json", fix);
	CHECK(run_tool(args) == 0);
	CHECK(out[0] == '{' && strstr(out, "\"core_pmus\": [\"armv8_cortex_a53\", \"armv8_cortex_a72\"]"));
	CHECK(strstr(out, "{\"event\": \"armv8_cortex_a72/inst_spec/\", \"name\": \"inst_spec\", \"kind\": \"sysfs\", "
		      "\"pmu\": \"armv8_cortex_a72\", \"encoding\": \"event=0x001b\"}"));
	CHECK(strstr(out, "\"long\": \"config1:0\""));
	snprintf(args, sizeof(args), "list --sysfs %s/broken", fix);
	CHECK(run_tool(args) == 0 && strstr(out, "rev=(malformed: config:7-0)") && strstr(err, "badtype/type"));
	/* pmu-list(1): each malformed file also on stderr, by path */
	CHECK_MSG(strstr(err, "/broken/cpu/format/rev is malformed: 'config:7-0'") &&
		  strstr(err, "/broken/cpu/events/binary: malformed event alias") &&
		  strstr(err, "/broken/cpu/events/huge: malformed event alias (too long)"), "%s", err);
	/* the same bytes under a decimal-comma locale: numbers never follow it */
	{
		static char c_out[1 << 22];

		snprintf(args, sizeof(args), "list --sysfs %s/intel --json", fix);
		CHECK(run_tool(args) == 0);
		memcpy(c_out, out, sizeof(out));
		snprintf(args, sizeof(args), "list --sysfs %s/intel --json", fix);
		setenv("LC_ALL", "de_DE.UTF-8", 1);
		CHECK(run_tool(args) == 0 && !strcmp(out, c_out));
		snprintf(args, sizeof(args), "encode --sysfs %s/intel cycles cpu/mem-loads,ldlat=3/", fix);
		CHECK(run_tool(args) == 0 && strstr(out, "config=0x1cd"));
		memcpy(c_out, out, sizeof(out));
		unsetenv("LC_ALL");
		CHECK(run_tool(args) == 0 && !strcmp(out, c_out));
	}
	/* a sysfs directory that is not there: said, exit 1 */
	CHECK(run_tool("list --sysfs /nonexistent/sysfs") == 1 && strstr(err, "/nonexistent/sysfs: No such file"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel 'no-such-*'", fix);
	CHECK(run_tool(args) == 1 && strstr(err, "no event matches"));
	/* One contract: a usage error exits 129, the tool alone included; a name that is no event fails pmu check. */
	CHECK(run_tool("") == 129 && strstr(err, "usage: pmu COMMAND"));
	CHECK(run_tool("bogus") == 129 && run_tool("check --bogus") == 129 && run_tool("list --bogus") == 129);
	st = run_tool("check -e cyclez");
	CHECK_MSG(st == 1 && strstr(out, "cyclez: unknown event"), "exit %d: %s", st, out);
	/* stdout and stderr into one file: a note (nobody's "tracepoints not listed") starts a line of its own */
	st = run_tool("list 2>&1");
	CHECK(st == 0);
	for (const char *p = strstr(out, "pmu list:"); p; p = strstr(p + 1, "pmu list:"))
		CHECK_MSG(p == out || p[-1] == '\n', "a note inside a line: ...%.40s", p > out + 30 ? p - 30 : out);
	T_DONE();
}
