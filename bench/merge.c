/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge at scale: N generated reports of 100 regions x 4 events
 * (two threads each, about 140 KB of json apiece) merged into one, for each
 * N given (default 100 1000 10000), then the same inputs as a tree of
 * merges of 100. Prints the time, the time per input and the merge's peak
 * RSS; the reports are written under $TMPDIR and removed.
 *   bench/merge [N...]   (run from the source tree; build/pmu is the tool)
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REGIONS 100
#define TREE 100

static const char *const events[] = { "task-clock", "page-faults", "context-switches", "cpu-migrations" };

static void figures(FILE *f, unsigned k, unsigned r, unsigned t)
{
	unsigned long long calls = 10 + (k + r + t) % 7, ns = calls * (1000 + (k * 7 + r) % 97);

	fprintf(f, "\"calls\": %llu, \"ns\": %llu, \"ns_per_call\": %.1f, \"counts\": {", calls, ns,
		(double)ns / (double)calls);
	for (unsigned e = 0; e < 4; e++)
		fprintf(f, "%s\"%s\": %llu", e ? ", " : "", events[e], (ns >> e) + k % 13);
	fputs("}, \"metrics\": {}", f);
}

static int write_report(const char *path, unsigned k)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fprintf(f, "{\n  \"library\": \"libpmu 0.4.0\",\n  \"pid\": %u,\n  \"hostname\": \"node%u\",\n"
		"  \"command\": \"./app\",\n  \"start\": \"2026-12-01T00:00:00Z\",\n  \"start_ns\": %llu,\n"
		"  \"events\": [\"task-clock\", \"page-faults\", \"context-switches\", \"cpu-migrations\"],\n"
		"  \"regions\": [", 1000 + k % 30000, k / 30000, 1796000000000000000ull + k);
	for (unsigned r = 0; r < REGIONS; r++) {
		fprintf(f, "%s\n    {\"name\": \"region_%03u\", ", r ? "," : "", r);
		/* the region's figures are its two threads' sums */
		{
			unsigned long long calls = 0, ns = 0, c[4] = { 0 };

			for (unsigned t = 0; t < 2; t++) {
				unsigned long long cl = 10 + (k + r + t) % 7, n = cl * (1000 + (k * 7 + r) % 97);

				calls += cl;
				ns += n;
				for (unsigned e = 0; e < 4; e++)
					c[e] += (n >> e) + k % 13;
			}
			fprintf(f, "\"calls\": %llu, \"ns\": %llu, \"ns_per_call\": %.1f, \"counts\": {", calls, ns,
				(double)ns / (double)calls);
			for (unsigned e = 0; e < 4; e++)
				fprintf(f, "%s\"%s\": %llu", e ? ", " : "", events[e], c[e]);
			/* the per call spread pmu_report writes */
			fprintf(f, "},\n      \"ns_min\": %llu, \"ns_max\": %llu, \"ns_stddev\": 12.5, ", ns / calls - 5,
				ns / calls + 9);
			for (unsigned w = 0; w < 4; w++) {
				static const char *const what[] = { "min", "max", "stddev", "running_pct" };

				fprintf(f, "%s\"%s\": {", w ? ", " : "", what[w]);
				for (unsigned e = 0; e < 4; e++)
					fprintf(f, "%s\"%s\": %llu", e ? ", " : "", events[e],
						w == 3 ? 100 : (c[e] / calls) + (w == 1 ? 3 : 0) - (w == 0 ? 3 : 0));
				fputc('}', f);
			}
			fputs(", \"metrics\": {},\n      \"threads\": [", f);
		}
		for (unsigned t = 0; t < 2; t++) {
			fprintf(f, "%s\n        {\"tid\": %u, \"name\": \"app\", \"exited\": false, ", t ? "," : "", 1000 + t);
			figures(f, k, r, t);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("\n  ]\n}\n", f);
	return fclose(f);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* build/pmu report merge ARGS...: exit status, with its peak RSS in KB and its seconds. */
static int run(char *const *argv, long *rss_kb, double *sec)
{
	struct rusage ru;
	double t0 = now();
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		execv("build/pmu", argv);
		_exit(126);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
		return -1;
	*sec = now() - t0;
	*rss_kb = ru.ru_maxrss;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(int argc, char **argv)
{
	static const unsigned def[] = { 100, 1000, 10000 };
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	unsigned nn = argc > 1 ? (unsigned)(argc - 1) : 3;

	if (access("build/pmu", X_OK)) {
		fprintf(stderr, "bench/merge: run it from the source tree after make (build/pmu)\n");
		return 1;
	}
	printf("%8s %10s %12s %10s   %s\n", "reports", "seconds", "ms/report", "peak MB", "merge");
	for (unsigned i = 0; i < nn; i++) {
		unsigned n = argc > 1 ? (unsigned)strtoul(argv[i + 1], NULL, 10) : def[i];
		char dir[PATH_MAX], path[PATH_MAX + 32], out[PATH_MAX + 32], cmd[PATH_MAX + 16];
		long rss;
		double sec;

		snprintf(dir, sizeof(dir), "%s/pmu-bench-merge-XXXXXX", tmp);
		if (!n || !mkdtemp(dir)) {
			perror("bench/merge");
			return 1;
		}
		snprintf(path, sizeof(path), "%s/in", dir);
		mkdir(path, 0755);
		for (unsigned k = 0; k < n; k++) {
			snprintf(path, sizeof(path), "%s/in/r%06u.json", dir, k);
			if (write_report(path, k)) {
				perror(path);
				return 1;
			}
		}
		snprintf(path, sizeof(path), "%s/in", dir);
		snprintf(out, sizeof(out), "%s/all.json", dir);
		if (run((char *[]){ "pmu", "report", "merge", "-o", out, path, NULL }, &rss, &sec)) {
			fprintf(stderr, "bench/merge: the merge of %u reports failed\n", n);
			return 1;
		}
		printf("%8u %10.2f %12.3f %10.1f   all at once\n", n, sec, 1e3 * sec / n, rss / 1024.0);
		/* a tree: merges of TREE reports, then one of those */
		if (n > TREE) {
			double tsec = 0;
			long trss = 0;

			snprintf(path, sizeof(path), "%s/mid", dir);
			mkdir(path, 0755);
			for (unsigned g = 0; g * TREE < n; g++) {
				char list[PATH_MAX + 32];
				FILE *f;

				snprintf(list, sizeof(list), "%s/list", dir);
				f = fopen(list, "we");
				for (unsigned k = g * TREE; f && k < n && k < (g + 1) * TREE; k++)
					fprintf(f, "%s/in/r%06u.json\n", dir, k);
				if (!f || fclose(f))
					return 1;
				snprintf(out, sizeof(out), "%s/mid/m%05u.json", dir, g);
				if (run((char *[]){ "pmu", "report", "merge", "-o", out, "--from", list, NULL }, &rss, &sec))
					return 1;
				tsec += sec;
				trss = rss > trss ? rss : trss;
			}
			snprintf(out, sizeof(out), "%s/tree.json", dir);
			if (run((char *[]){ "pmu", "report", "merge", "-o", out, path, NULL }, &rss, &sec))
				return 1;
			printf("%8u %10.2f %12.3f %10.1f   tree: merges of %u (peak %.1f MB), then of those %.2f s\n", n,
			       tsec + sec, 1e3 * (tsec + sec) / n, (rss > trss ? rss : trss) / 1024.0, TREE, trss / 1024.0,
			       sec);
		}
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			return 1;
	}
	return 0;
}
