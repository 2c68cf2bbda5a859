/* SPDX-License-Identifier: MIT */
/*
 * pmu list metric and metricgroup: the built-in set, perf-format files given
 * by --perf-json and PMU_PERF_JSON (each metric listed, or refused with its
 * reason), their events in the core PMU's terms (pmu encode), and every
 * metric of the Linux 6.1 tree when the user has it (as test/events/expr_tree.c
 * finds it; not shipped).
 */
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "test.h"
#include "tool_run.h"

static bool has(const char *s, const char *what)
{
	return strstr(s, what) != NULL;
}

/* Sums the metrics of every model directory under dir (those with .json files and no mapfile.csv). */
static void tree(const char *dir, unsigned *total, unsigned *offered, unsigned *refused, unsigned *noreason)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool json = false, map = false;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			tree(path, total, offered, refused, noreason);
		else if (l > 5 && !strcmp(de->d_name + l - 5, ".json"))
			json = true;
		else if (!strcmp(de->d_name, "mapfile.csv"))
			map = true;
	}
	closedir(d);
	if (!json || map)	/* the arch level's own files: architected events */
		return;
	const char *args[] = { "list", "metric", "--perf-json", dir, NULL };
	unsigned t = 0, o = 0, r = 0;
	int rc = run_argv(args);

	CHECK_RUN(rc == 0, "%s: exit %d", dir, rc);
	CHECK_RUN(sscanf(strstr(out, "\n\n") ? strstr(out, "\n\n") + 2 : out, "%u metrics: %u offered, %u refused", &t, &o,
		     &r) == 3, "%s: no count", dir);
	for (const char *p = out; (p = strstr(p, " refused: ")); p += 10)
		if (p[10] == '\n' || !p[10])
			(*noreason)++;
	*total += t;
	*offered += o;
	*refused += r;
}

int main(void)
{
	char path[PATH_MAX + 256], sysfs[PATH_MAX + 512], env[PATH_MAX + 512];
	const char *base = getenv("PMU_PERF_EVENTS_DIR"), *home = getenv("HOME"), *cache = getenv("XDG_CACHE_HOME");
	int rc;

	if (find() < 0) {
		printf("SKIP: the pmu tool or the fixtures not found\n");
		return 77;
	}
	/* the built-in set */
	rc = run_argv((const char *[]){ "list", "metric", NULL });
	CHECK_RUN(rc == 0 && has(out, "metrics (built in):") && has(out, "  IPC ") &&
	      has(out, "= instructions / cycles") && has(out, "29 metrics: 29 offered, 0 refused"), "built-in list");
	rc = run_argv((const char *[]){ "list", "metricgroup", NULL });
	CHECK_RUN(rc == 0 && has(out, "  Pipeline: IPC CPI\n") &&
	       has(out, "  ENERGY: energy_pkg power_pkg energy_dram power_dram\n") &&
	       has(out, "  MEM: mem_read_bw mem_write_bw mem_bw mem_volume\n"), "built-in groups, LIKWID's among them");

	/* one metric list: each metric offered or refused with its reason */
	snprintf(path, sizeof(path), "%s/perf_json/sw_metrics.json", fix);
	rc = run_argv((const char *[]){ "list", "metric", "--perf-json", path, NULL });
	CHECK_RUN(rc == 0 && has(out, "6 metrics: 4 offered, 2 refused"), "file counts");
	CHECK_RUN(has(out, "  page_faults_per_ms ") && has(out, "= page-faults / (task-clock / 1e6)  (in faults/ms)\n") &&
	       !has(out, "= page\\-") && !has(out, "ScaleUnit"), "a metric's line, as people write it");
	CHECK_RUN(has(out, "refused: 'no_such_event' names no event"), "an unknown event refused by name");
	CHECK_RUN(has(out, "  bad_expr") && strstr(strstr(out, "  bad_expr"), "refused: ") &&
	      !has(out, "= page-faults / (task-clock\n"), "a bad expression refused");
	CHECK_RUN(has(out, "  faults_per_sec ") && !has(strstr(out, "  faults_per_sec"), "refused") == false,
	      "a metric reference offered");
	rc = run_argv((const char *[]){ "list", "metricgroup", "--perf-json", path, NULL });
	CHECK_RUN(rc == 0 && has(out, "  Faults: page_faults_per_ms\n") &&
	      has(out, "  Software: page_faults_per_ms cs_per_fault migrations_per_cs\n"), "file groups");
	/* PMU_PERF_JSON: the same, and --perf-json=PATH */
	snprintf(env, sizeof(env), "PMU_PERF_JSON=%s", path);
	rc = run(env, tool, "list metric");
	CHECK_RUN(rc == 0 && has(out, "6 metrics: 4 offered, 2 refused"), "PMU_PERF_JSON");
	snprintf(env, sizeof(env), "--perf-json=%s", path);
	rc = run_argv((const char *[]){ "list", "--json", env, "metric", NULL });
	CHECK_RUN(rc == 0 && has(out, "\"offered\": 4") && has(out, "\"refused\": \"'no_such_event' names"), "--json");
	rc = run_argv((const char *[]){ "list", "metric", "--perf-json", "/nonexistent/perf.json", NULL });
	CHECK_RUN(rc == 1 && has(err, "/nonexistent/perf.json: no such directory or file"), "a missing path");
	snprintf(path, sizeof(path), "%s/perf_json/arch", fix);
	rc = run_argv((const char *[]){ "list", "metric", "--perf-json", fix, NULL });
	CHECK_RUN(rc == 1 && has(err, "no .json file"), "a directory that is no tree");

	/* an x86 model directory: perf's names into the core PMU's format terms */
	snprintf(path, sizeof(path), "%s/perf_json/x86model", fix);
	snprintf(sysfs, sizeof(sysfs), "%s/intel", fix);
	rc = run_argv((const char *[]){ "list", "metric", "--sysfs", sysfs, "--perf-json", path, NULL });
	CHECK_RUN(rc == 0 && has(out, "4 metrics: 4 offered, 0 refused"), "x86 model metrics");
	rc = run_argv((const char *[]){ "encode", "--sysfs", sysfs, "--perf-json", path,
		"INT_MISC.RECOVERY_CYCLES,IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE,INST_RETIRED.ANY:u",
		"CPU_CLK_UNHALTED.THREAD,TOPDOWN.SLOTS", NULL });
	/* event | umask << 8 | edge << 18 | inv << 23 | cmask << 24 */
	CHECK_RUN(has(out, "INT_MISC.RECOVERY_CYCLES pmu=cpu type=4 config=0x10401ad "), "cmask, edge");
	CHECK_RUN(has(out, "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE pmu=cpu type=4 config=0x480019c "), "inv");
	CHECK_RUN(has(out, "INST_RETIRED.ANY:u pmu=cpu type=4 config=0xc0 ") && has(out, "exclude_user=0 exclude_kernel=1"),
	      "a fixed counter's code, as perf fixes it, and a modifier");
	CHECK_RUN(has(out, "CPU_CLK_UNHALTED.THREAD pmu=cpu type=4 config=0x3c "), "cycles");
	CHECK_RUN(has(out, "TOPDOWN.SLOTS pmu=cpu type=4 config=0x400 "), "an event without EventCode");
	CHECK_RUN(rc == 0, "encode exit %d", rc);
	/* an uncore Unit names perf's PMU (uncore_imc), which counts on each of its boxes there */
	rc = run_argv((const char *[]){ "encode", "--sysfs", sysfs, "--perf-json", path, "UNC_M_CAS_COUNT.RD", NULL });
	CHECK_RUN(rc == 0 && has(out, "UNC_M_CAS_COUNT.RD pmu=uncore_imc_0 type=14 config=0xf04 ") &&
	       has(out, "UNC_M_CAS_COUNT.RD pmu=uncore_imc_1 type=15 config=0xf04 "), "an uncore Unit");

	/* arm64: an arch tree's model directory, ArchStdEvent resolved in the arch level's files */
	snprintf(path, sizeof(path), "%s/perf_json/arch/arm64/acme/core1", fix);
	snprintf(sysfs, sizeof(sysfs), "%s/arm64", fix);
	rc = run_argv((const char *[]){ "encode", "--sysfs", sysfs, "--perf-json", path, "CPU_CYCLES,ACME_STALL_SLOT",
		NULL });
	CHECK_RUN(rc == 0 && has(out, "CPU_CYCLES pmu=armv8_pmuv3_0 type=8 config=0x11 ") &&
	      has(out, "ACME_STALL_SLOT pmu=armv8_pmuv3_0 type=8 config=0x3f "), "ArchStdEvent");
	rc = run_argv((const char *[]){ "list", "metric", "--perf-json", path, NULL });
	CHECK_RUN(rc == 0 && has(out, "2 metrics: 2 offered, 0 refused") && has(out, "(#slots * CPU_CYCLES)"), "arm64 metrics");

	/* perf's 6.1 tree, where the user has it */
	if (base && *base)
		snprintf(path, sizeof(path), "%.4000s", base);
	else if (cache && *cache)
		snprintf(path, sizeof(path), "%.4000s/libpmu-perf-events", cache);
	else
		snprintf(path, sizeof(path), "%.4000s%s.cache/libpmu-perf-events", home ? home : "",
			 home && *home && home[strlen(home) - 1] == '/' ? "" : "/");
	snprintf(sysfs, sizeof(sysfs), "%s/arch", path);
	if (access(sysfs, R_OK) == 0)
		snprintf(path, sizeof(path), "%.4000s", sysfs);
	else {
		snprintf(sysfs, sizeof(sysfs), "%s/pmu-events/arch", path);
		if (access(sysfs, R_OK) == 0)
			snprintf(path, sizeof(path), "%.4000s", sysfs);
	}
	snprintf(sysfs, sizeof(sysfs), "%s/x86/mapfile.csv", path);
	if (access(sysfs, R_OK) != 0) {
		if (t_failures)
			return 1;
		printf("SKIP: the fixtures pass; no Linux 6.1 pmu-events tree at %s (test/events/expr_tree.c extracts one "
		       "there from linux-source-6.1)\n", path);
		return 77;
	}
	unsigned total = 0, offered = 0, refused = 0, noreason = 0;

	tree(path, &total, &offered, &refused, &noreason);
	printf("6.1 tree: %u metrics, %u offered, %u refused\n", total, offered, refused);
	CHECK_RUN(total == 3815, "the 6.1 tree has 3,815 metrics, %u listed", total);
	CHECK_RUN(offered + refused == total && noreason == 0, "each refused with a reason (%u without)", noreason);
	CHECK_RUN(offered >= 3700, "only %u offered", offered);
	/* the running CPU's directory through mapfile.csv: picked, or the CPU named when absent */
	rc = run_argv((const char *[]){ "list", "metric", "--perf-json", path, NULL });
	CHECK_RUN(rc == 0 || has(err, "is not in its mapfile.csv"), "the tree's root");
	T_DONE();
}
