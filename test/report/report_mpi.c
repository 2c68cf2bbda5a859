/* SPDX-License-Identifier: MIT */
/*
 * The MPI path for real: examples/mpi/regions.c built with mpicc against
 * this build's libpmu.a and run under `mpirun -np 2`; each rank writes its
 * own json report, named by %r, with its own pid and the same regions,
 * which `pmu report merge` makes one: 2 processes, 10 calls of each region
 * in each.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu.h"
#include "report/report_read.h"
#include "test.h"

static char *slurp(const char *path)
{
	static char buf[2][65536];
	static int k;
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf[k], 1, sizeof(buf[k]) - 1, f) : 0;

	if (f)
		fclose(f);
	k ^= 1;
	buf[k ^ 1][n] = '\0';
	return buf[k ^ 1];
}

/* Cuts p at its last '/'. */
static void up(char *p)
{
	char *s = strrchr(p, '/');

	if (s && s != p)
		*s = '\0';
}

/* The merged report: both ranks, each region 10 calls in each. */
static void merged(const char *path)
{
	static const char *const names[] = { "compute", "exchange" };
	struct pmu__json *doc;
	const struct pmu__json *p, *regs;
	uint64_t x;

	if (pmu__json_load(path, &doc) < 0) {
		CHECK_MSG(0, "%s", pmu_errmsg());
		return;
	}
	p = pmu__json_get(doc, "processes");
	regs = pmu__json_get(doc, "regions");
	CHECK_EQ(p ? p->n : 0, 2);
	CHECK_EQ(regs ? regs->n : 0, 2);
	for (size_t i = 0; regs && i < regs->n && i < 2; i++) {
		const struct pmu__json *r = &regs->v[i], *calls = pmu__json_get(pmu__json_get(r, "per_process"), "calls");
		const struct pmu__json *n = pmu__json_get(r, "name");

		CHECK_MSG(n && n->type == PMU_JSON_STRING && !strcmp(n->s, names[i]), "region %zu", i);
		CHECK(pmu__json_u64(pmu__json_get(r, "processes"), &x) && x == 2);
		CHECK(pmu__json_u64(pmu__json_get(r, "calls"), &x) && x == 20);
		CHECK(pmu__json_u64(pmu__json_get(calls, "min"), &x) && x == 10);
		CHECK(pmu__json_u64(pmu__json_get(calls, "max"), &x) && x == 10);
	}
	pmu__json_free(doc);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], build[PATH_MAX], root[PATH_MAX], dir[] = "/tmp/pmu-mpi-XXXXXX", cmd[8 * PATH_MAX];
	char path[PATH_MAX + 32];
	const char *root_ = "";
	int pid[2];

	(void)argc;
#ifdef T_SANITIZED
	T_SKIP("a sanitized libpmu.a is not linked into an mpicc program");
#endif
	if (system("command -v mpicc >/dev/null 2>&1") != 0)
		T_SKIP("mpicc is not installed (Debian: libopenmpi-dev)");
	if (system("command -v mpirun >/dev/null 2>&1") != 0)
		T_SKIP("mpirun is not installed (Debian: openmpi-bin)");
	if (!realpath(argv[0], self))
		T_SKIP("cannot resolve %s", argv[0]);
	snprintf(build, sizeof(build), "%s", self);
	up(build);	/* BUILD/test */
	up(build);	/* BUILD */
	snprintf(root, sizeof(root), "%s", build);
	up(root);
	root_ = root;
	snprintf(path, sizeof(path), "%s/examples/mpi/regions.c", root_);
	if (access(path, R_OK) != 0)
		T_SKIP("%s: not found from %s", path, argv[0]);
	CHECK(mkdtemp(dir) != NULL);

	snprintf(cmd, sizeof(cmd), "mpicc -std=gnu11 -Wall -Wextra -Werror -I'%s/include' -o '%s/mpi_regions' '%s' "
		 "'%s/libpmu.a' -pthread -lm", root_, dir, path, build);
	if (system(cmd) != 0) {
		fprintf(stderr, "%s: failed\n", cmd);
		rmdir(dir);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "env -u PMU_EVENTS -u PMU_REPORT timeout 120 mpirun -np 2 --oversubscribe "
		 "--allow-run-as-root '%s/mpi_regions' '%s/rank-%%r.json' >'%s/out' 2>&1", dir, dir, dir);
	int st = system(cmd);
	snprintf(path, sizeof(path), "%s/out", dir);
	CHECK_MSG(st == 0, "%s: %s", cmd, slurp(path));
	CHECK_MSG(strstr(slurp(path), "2 ranks, sum "), "%s", slurp(path));
	unlink(path);

	/* merged */
	snprintf(cmd, sizeof(cmd), "'%s/pmu' report merge -o '%s/merged.json' '%s/rank-0.json' '%s/rank-1.json' "
		 ">'%s/out' 2>&1", build, dir, dir, dir, dir);
	st = system(cmd);
	snprintf(path, sizeof(path), "%s/out", dir);
	CHECK_MSG(st == 0 && !*slurp(path), "%s: %s", cmd, slurp(path));
	unlink(path);
	snprintf(path, sizeof(path), "%s/merged.json", dir);
	merged(path);
	unlink(path);

	for (int r = 0; r < 2; r++) {
		char *j;

		snprintf(path, sizeof(path), "%s/rank-%d.json", dir, r);
		j = slurp(path);
		CHECK_MSG(!strncmp(j, "{\n  \"library\": \"libpmu ", 23), "%s: %s", path, j);
		CHECK_MSG(strstr(j, "\"name\": \"compute\", \"parent\": null, \"calls\": 10,") &&
			  strstr(j, "\"name\": \"exchange\", \"parent\": null, \"calls\": 10,") && strstr(j, "/mpi_regions "), "%s: %s",
			  path, j);
		pid[r] = strstr(j, "\"pid\": ") ? atoi(strstr(j, "\"pid\": ") + 7) : 0;
		CHECK(pid[r] > 0);
		unlink(path);
	}
	CHECK_MSG(pid[0] != pid[1], "both ranks' reports say pid %d", pid[0]);
	snprintf(path, sizeof(path), "%s/mpi_regions", dir);
	unlink(path);
	CHECK_MSG(rmdir(dir) == 0, "%s: files other than the two ranks' reports", dir);
	T_DONE();
}
