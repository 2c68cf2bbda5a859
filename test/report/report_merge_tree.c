/* SPDX-License-Identifier: MIT */
/*
 * Merged reports merge again: 16 generated reports (ties and near-equal
 * figures among them) merged at once, and as a tree of 4 merges of 4, give
 * the same table, csv and json but for the list of input files; a merged
 * report mixed with plain ones too. Inputs from a directory and from
 * --from list the same. Two merged reports sharing a process, another
 * merged format, another major version and edited figures are refused.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "test.h"
#include "tool_run.h"

#define N 16
#define EXTRA 4		/* more processes than the table lists one by one */

static char dir[] = "/tmp/pmu-merge-tree-XXXXXX", in[N + EXTRA][96];

static uint64_t h(unsigned k, unsigned j, unsigned salt)
{
	uint64_t x = (k + 1) * 0x9e3779b97f4a7c15ull ^ (j + 1) * 0xbf58476d1ce4e5b9ull ^ salt * 0x94d049bb133111ebull;

	x ^= x >> 31;
	return x * 0xd6e8feb86659fd93ull >> 32;
}

/* Process k's report: regions r0..r5 (some absent), per call ranges in most. */
static int write_report(unsigned k, const char *path)
{
	FILE *f = fopen(path, "we");
	bool first = true;

	if (!f)
		return -1;
	fprintf(f, "{\"library\": \"libpmu 0.4.0\", \"pid\": %u, \"hostname\": \"node%u\", \"command\": \"./app %u\",\n"
		"\"start\": \"2026-12-01T00:00:00Z\", \"start_ns\": %llu, \"events\": [\"task-clock\", \"page-faults\"],\n"
		"\"regions\": [", 1000 + k, k % 4, k, 1796000000000000000ull + k);
	for (unsigned j = 0; j < 6; j++) {
		/* ns per call that tie, and that differ only past the decimal shown */
		uint64_t calls = (uint64_t[]){ 3, 7, 9, 11 }[h(k, j, 1) % 4];
		uint64_t ns = calls * (1000 + h(k, j, 2) % 2) + 1;
		uint64_t tc = ns - h(k, j, 4) % 50, pf = h(k, j, 5) % 3;
		char fig[256];

		if ((k + j) % 3 == 0)
			continue;
		snprintf(fig, sizeof(fig), "\"calls\": %llu, \"ns\": %llu, \"ns_per_call\": %.1f, "
			 "\"counts\": {\"task-clock\": %llu, \"page-faults\": %llu}", (unsigned long long)calls,
			 (unsigned long long)ns, (double)ns / (double)calls, (unsigned long long)tc, (unsigned long long)pf);
		fprintf(f, "%s\n {\"name\": \"r%u\", %s, ", first ? "" : ",", j, fig);
		if (k % 5)
			fprintf(f, "\"ns_min\": %llu, \"ns_max\": %llu, \"min\": {\"task-clock\": %llu, \"page-faults\": 0}, "
				"\"max\": {\"task-clock\": %llu, \"page-faults\": %llu}, ", (unsigned long long)(ns / calls - k % 3),
				(unsigned long long)(ns / calls + j), (unsigned long long)(tc / calls - 1),
				(unsigned long long)(tc / calls + 1 + k % 2), (unsigned long long)pf);
		fprintf(f, "\"threads\": [{\"tid\": %u, \"name\": \"app\", \"exited\": false, %s}]}", 1000 + k, fig);
		first = false;
	}
	fputs("]}\n", f);
	return fclose(f);
}

/* out without its "files" line (the inputs given, which a tree merge names otherwise). */
static char *without_files(void)
{
	char *s = strdup(out), *l = s ? strstr(s, "\n  \"files\": [") : NULL;

	if (l)
		memmove(l, strchr(l + 1, '\n'), strlen(strchr(l + 1, '\n')) + 1);
	return s;
}

static char *merge(const char *format, const char *const *files, unsigned n)
{
	const char *args[32] = { "report", "merge", "--format", format };
	unsigned a = 4;

	for (unsigned i = 0; i < n; i++)
		args[a++] = files[i];
	args[a] = NULL;
	CHECK_MSG(run_argv(args) == 0, "%s", err);
	return without_files();
}

/* Each of table, csv and json of files equal to those of want. */
static void same(const char *what, const char *const *files, unsigned n, const char *const *want, unsigned nw)
{
	static const char *const formats[] = { "table", "csv", "json" };

	for (unsigned i = 0; i < 3; i++) {
		char *a = merge(formats[i], files, n), *b = merge(formats[i], want, nw);

		CHECK_MSG(a && b && !strcmp(a, b), "%s, %s:\n%s\nexpected:\n%s", what, formats[i], a, b);
		free(a);
		free(b);
	}
}

int main(void)
{
	const char *flat[N], *mid[4], *mixed[1 + N - 4];
	char mpath[4][128], list[128], edited[128], *a, *b;
	FILE *f;

	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");
	CHECK(mkdtemp(dir) != NULL);
	for (unsigned k = 0; k < N + EXTRA; k++) {
		snprintf(in[k], sizeof(in[k]), "%s/%s/p%02u.json", dir, k < N ? "a" : "b", k);
		if (k == 0 || k == N) {
			char d[96];

			snprintf(d, sizeof(d), "%s/%s", dir, k < N ? "a" : "b");
			CHECK(mkdir(d, 0755) == 0);
		}
		CHECK(write_report(k, in[k]) == 0);
		if (k < N)
			flat[k] = in[k];
	}
	/* a tree: 4 merges of 4, then one of the 4 */
	for (unsigned g = 0; g < 4; g++) {
		const char *args[8] = { "report", "merge", "-o", mpath[g] };

		snprintf(mpath[g], sizeof(mpath[g]), "%s/m%u.json", dir, g);
		for (unsigned i = 0; i < 4; i++)
			args[4 + i] = in[4 * g + i];
		CHECK_MSG(run_argv((const char *[]){ args[0], args[1], args[2], args[3], args[4], args[5], args[6],
						     args[7], NULL }) == 0, "%s", err);
		mid[g] = mpath[g];
	}
	same("tree of 4 x 4", mid, 4, flat, N);
	/* a merged report with plain ones */
	mixed[0] = mpath[0];
	for (unsigned i = 4; i < N; i++)
		mixed[i - 3] = in[i];
	same("merged with plain", mixed, 1 + N - 4, flat, N);

	/* a directory and a list stand for the same files, files line included */
	snprintf(list, sizeof(list), "%s/a", dir);
	CHECK_EQ(PMU("report", "merge", "--format", "json", list), 0);
	a = strdup(out);
	CHECK_EQ(run_argv((const char *[]){ "report", "merge", "--format", "json", flat[0], flat[1], flat[2], flat[3],
					    flat[4], flat[5], flat[6], flat[7], flat[8], flat[9], flat[10], flat[11],
					    flat[12], flat[13], flat[14], flat[15], NULL }), 0);
	CHECK_MSG(a && !strcmp(a, out), "directory:\n%s\nexpected:\n%s", a, out);
	snprintf(list, sizeof(list), "%s/list", dir);
	f = fopen(list, "we");
	for (unsigned i = 0; f && i < N; i++)
		fprintf(f, "%s\n%s", flat[i], i == 3 ? "\n" : "");	/* an empty line is skipped */
	CHECK(f && fclose(f) == 0);
	b = strdup(out);
	CHECK_EQ(PMU("report", "merge", "--format", "json", "--from", list), 0);
	CHECK_MSG(b && !strcmp(b, out), "--from:\n%s\nexpected:\n%s", out, b);
	free(a);
	free(b);

	/* many processes: the table names those of a min or max, json every one */
	snprintf(list, sizeof(list), "%s/a", dir);
	snprintf(edited, sizeof(edited), "%s/b", dir);
	CHECK_EQ(PMU("report", "merge", list, edited), 0);
	snprintf(edited, sizeof(edited), "%s/edited.json", dir);
	CHECK_MSG(strstr(out, "libpmu merged report: 20 processes, 6 regions; events: task-clock, page-faults\n"
			      "  (20 processes: those of a min or max below; json lists every one)\n"), "%s", out);
	CHECK_MSG(strstr(out, "  #0   ") || strstr(out, "  #1   "), "%s", out);

	/* refused: two merged reports sharing a process, another format, another major version, edits */
	CHECK_EQ(PMU("report", "merge", "-o", edited, in[0], in[4]), 0);
	CHECK_EQ(PMU("report", "merge", mpath[0], edited), 1);
	CHECK_MSG(strstr(err, ": the same process as ") && strstr(err, "a report given twice?\n"), "%s", err);
	{
		static const char *const edits[][3] = {
			{ "\"merged\": 1,", "\"merged\": 2,", "a merged report of format 2; this pmu reads format 1" },
			{ "\"library\": \"libpmu 0.", "\"library\": \"libpmu 9.", "another major version" },
			{ "\"min_process\": 0,", "\"min_process\": 7,", "\"min_process\" is 7, but \"processes\" has 4" },
			{ "\"sum_1024\": \"", "\"sum_1024\": \"x", "\"sum_1024\" is not a string of decimal digits" },
			{ "\"processes\": 3,", "\"processes\": 5,", "\"processes\" is 5 (1 to 4)" },
		};
		char doc[1 << 16], *p;
		int n = t_slurp(mpath[0], doc, sizeof(doc));

		CHECK(n > 0);
		for (unsigned i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
			char ed[sizeof(doc) + 16];

			p = strstr(doc, edits[i][0]);
			CHECK_MSG(p, "%s not in the merged report", edits[i][0]);
			if (!p)
				continue;
			snprintf(ed, sizeof(ed), "%.*s%s%s", (int)(p - doc), doc, edits[i][1], p + strlen(edits[i][0]));
			f = fopen(edited, "we");
			CHECK(f && fputs(ed, f) >= 0 && fclose(f) == 0);
			CHECK_EQ(PMU("report", "merge", edited, in[5]), 1);
			CHECK_MSG(strstr(err, edits[i][2]), "%s: %s", edits[i][1], err);
		}
	}
	snprintf(list, sizeof(list), "rm -rf '%s'", dir);
	CHECK(system(list) == 0);
	T_DONE();
}
