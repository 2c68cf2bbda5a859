/* SPDX-License-Identifier: MIT */
/* pmu encode and pmu list against the fixture trees: exact output, messages, exit status. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char tool[PATH_MAX + 32], fix[PATH_MAX + 32], out[1 << 22], err[1 << 14];

static int slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (int)n;
}

/* Runs "pmu ARGS" (ARGS already shell-quoted); returns the exit status. */
static int run(const char *args)
{
	char cmd[4 * PATH_MAX + 1024], o[64], e[64];
	int st;

	snprintf(o, sizeof(o), "/tmp/pmu-tool-%d.out", (int)getpid());
	snprintf(e, sizeof(e), "/tmp/pmu-tool-%d.err", (int)getpid());
	snprintf(cmd, sizeof(cmd), "%s %s >%s 2>%s", tool, args, o, e);
	st = system(cmd);
	slurp(o, out, sizeof(out));
	slurp(e, err, sizeof(err));
	unlink(o);
	unlink(e);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int find(void)
{
	char exe[PATH_MAX], *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (!(s = strrchr(exe, '/')))
		return -1;
	*s = '\0';	/* build/test */
	snprintf(tool, sizeof(tool), "%s/../pmu", exe);
	if (access(tool, X_OK))
		return -1;
	if (access("test/fixtures/intel/cpu/type", R_OK) == 0)
		snprintf(fix, sizeof(fix), "test/fixtures");
	else {
		snprintf(fix, sizeof(fix), "%s/../../test/fixtures", exe);
		if (access(fix, R_OK))
			return -1;
	}
	return 0;
}

int main(void)
{
	char args[2 * PATH_MAX + 512];
	int st;

	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");

	snprintf(args, sizeof(args), "encode --sysfs %s/intel_hybrid cycles 'cpu_core/event=0x3c,umask=1/k' "
		 "task-clock", fix);
	st = run(args);
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
	st = run(args);
	CHECK(st == 0);
	CHECK_MSG(!strcmp(out,
		"cycles pmu=armv8_pmuv3_0 type=0 config=0x0 config1=0x3 config2=0x0 config3=0x0 "
		"exclude_user=0 exclude_kernel=1 exclude_hv=1\n"
		"armv8_pmuv3_0/event=0x8,long=0/u pmu=armv8_pmuv3_0 type=8 config=0x8 config1=0x2 config2=0x0 "
		"config3=0x0 exclude_user=0 exclude_kernel=1 exclude_hv=1\n"), "got:\n%s", out);

	/* errors: on stderr, naming the event; good events still printed; exit 1 */
	snprintf(args, sizeof(args), "encode --sysfs %s/amd_zen cyclez 'cpu/event=0x1000/' instructions", fix);
	st = run(args);
	CHECK(st == 1);
	CHECK_MSG(strstr(err, "cyclez: unknown event") && strstr(err, "did you mean cycles"), "%s", err);
	CHECK_MSG(strstr(err, "cpu/event=0x1000/: value 0x1000 is wider than term 'event' of PMU cpu (12 bits"),
		  "%s", err);
	CHECK(!strncmp(out, "instructions pmu=cpu type=0 config=0x1 ", 39));
	CHECK(run("encode") == 2);
	CHECK(run("encode --bogus cycles") == 2);
	snprintf(args, sizeof(args), "encode --sysfs %s/intel ',,'", fix);
	CHECK(run(args) == 1 && strstr(err, "empty event"));

	/* list: text, glob, JSON */
	snprintf(args, sizeof(args), "list --sysfs %s/intel", fix);
	CHECK(run(args) == 0);
	CHECK(strstr(out, "hardware events:") && strstr(out, "L1-dcache-load-misses") &&
	      strstr(out, "task-clock") && strstr(out, "PMU cpu (type 4, core):"));
	CHECK(strstr(out, "cpu/mem-loads/") && strstr(out, "event=0xcd,umask=0x1,ldlat=3"));
	CHECK(strstr(out, "uncore_imc_0/cas_count_read/") && strstr(out, "(scale 6.103515625e-5, unit MiB)"));
	CHECK(strstr(out, "frontend=config1:0-23"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel 'topdown-*'", fix);
	CHECK(run(args) == 0);
	CHECK(strstr(out, "cpu/topdown-total-slots/") && strstr(out, "(scale 2)") && !strstr(out, "cycles"));
	snprintf(args, sizeof(args), "list --sysfs %s/amd_zen amd_df", fix);
	CHECK(run(args) == 0 && strstr(out, "event=config:0-7,32-35,59-60"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel_hybrid", fix);
	CHECK(run(args) == 0 && strstr(out, "every core PMU (cpu_core, cpu_atom)"));
	/* perf list's keywords: one kind of event each */
	snprintf(args, sizeof(args), "list --sysfs %s/intel hw", fix);
	CHECK(run(args) == 0 && strstr(out, "hardware events:") && strstr(out, "  cycles ") &&
	      !strstr(out, "task-clock") && !strstr(out, "L1-dcache") && !strstr(out, "PMU cpu"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel sw", fix);
	CHECK(run(args) == 0 && strstr(out, "task-clock") && !strstr(out, "  cycles ") && !strstr(out, "PMU "));
	snprintf(args, sizeof(args), "list --sysfs %s/intel cache", fix);
	CHECK(run(args) == 0 && strstr(out, "L1-dcache-load-misses") && !strstr(out, "task-clock") &&
	      !strstr(out, "PMU "));
	snprintf(args, sizeof(args), "list --sysfs %s/intel pmu", fix);
	CHECK(run(args) == 0 && strstr(out, "cpu/mem-loads/") && strstr(out, "PMU cpu (type 4, core):") &&
	      !strstr(out, "task-clock") && !strstr(out, "hardware events:"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel tracepoint", fix);
	CHECK(run(args) == 1 && strstr(err, "PMU_TRACEFS=DIR"));
	snprintf(args, sizeof(args), "list --sysfs %s/arm64_big_little --json", fix);
	CHECK(run(args) == 0);
	CHECK(out[0] == '{' && strstr(out, "\"core_pmus\": [\"armv8_cortex_a53\", \"armv8_cortex_a72\"]"));
	CHECK(strstr(out, "{\"event\": \"armv8_cortex_a72/inst_spec/\", \"name\": \"inst_spec\", \"kind\": \"sysfs\", "
		      "\"pmu\": \"armv8_cortex_a72\", \"encoding\": \"event=0x001b\"}"));
	CHECK(strstr(out, "\"long\": \"config1:0\""));
	snprintf(args, sizeof(args), "list --sysfs %s/broken", fix);
	CHECK(run(args) == 0 && strstr(out, "rev=(malformed: config:7-0)") && strstr(err, "badtype/type"));
	/* pmu-list(1): each malformed file also on stderr, by path */
	CHECK_MSG(strstr(err, "/broken/cpu/format/rev is malformed: 'config:7-0'") &&
		  strstr(err, "/broken/cpu/events/binary: malformed event alias") &&
		  strstr(err, "/broken/cpu/events/huge: malformed event alias (too long)"), "%s", err);
	/* the same bytes under a decimal-comma locale: numbers never follow it */
	{
		static char c_out[1 << 22];

		snprintf(args, sizeof(args), "list --sysfs %s/intel --json", fix);
		CHECK(run(args) == 0);
		memcpy(c_out, out, sizeof(out));
		snprintf(args, sizeof(args), "list --sysfs %s/intel --json", fix);
		setenv("LC_ALL", "de_DE.UTF-8", 1);
		CHECK(run(args) == 0 && !strcmp(out, c_out));
		snprintf(args, sizeof(args), "encode --sysfs %s/intel cycles cpu/mem-loads,ldlat=3/", fix);
		CHECK(run(args) == 0 && strstr(out, "config=0x1cd"));
		memcpy(c_out, out, sizeof(out));
		unsetenv("LC_ALL");
		CHECK(run(args) == 0 && !strcmp(out, c_out));
	}
	/* a sysfs directory that is not there: said, exit 1 */
	CHECK(run("list --sysfs /nonexistent/sysfs") == 1 && strstr(err, "/nonexistent/sysfs: No such file"));
	snprintf(args, sizeof(args), "list --sysfs %s/intel 'no-such-*'", fix);
	CHECK(run(args) == 1 && strstr(err, "no event matches"));
	T_DONE();
}
