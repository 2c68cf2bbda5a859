/* SPDX-License-Identifier: MIT */
/* pmu check: what this machine allows, for a person deciding whether to trust the numbers. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "internal.h"	/* pmu__event_next: the library's own list splitter */
#include "cmds.h"

/* The first line of a small file, without its newline; NULL when absent. */
static const char *read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char *ok;

	if (!f)
		return NULL;
	ok = fgets(buf, (int)size, f);
	fclose(f);
	if (!ok)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void show_pmus(void)
{
	DIR *d = opendir(pmu__sysfs_root());
	char *names[256], path[4096], buf[64];
	struct dirent *e;
	size_t n = 0;
	int core = 0;

	printf("PMUs (%s):\n", pmu__sysfs_root());
	if (!d) {
		printf("  none: %s\n", strerror(errno));
		return;
	}
	while ((e = readdir(d)) && n < 256)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		const char *type, *kind = "";

		snprintf(path, sizeof(path), "%s/%s/type", pmu__sysfs_root(), names[i]);
		type = read_line(path, buf, sizeof(buf));
		snprintf(path, sizeof(path), "%s/%s/cpus", pmu__sysfs_root(), names[i]);
		if (!strcmp(names[i], "cpu") || !strncmp(names[i], "cpu_", 4) ||
		    !strncmp(names[i], "armv8", 5) || read_line(path, buf + 32, 32)) {
			kind = "  (core PMU: cycles, instructions, ...)";
			core++;
		}
		printf("  %-20s type %s%s\n", names[i], type ? type : "?", kind);
		free(names[i]);
	}
	if (!core)
		printf("  no core PMU: hardware events (cycles, instructions, cache misses) cannot be counted\n"
		       "  here; a virtual machine needs a virtual PMU (e.g. KVM's -cpu host,pmu=on)\n");
}

static void show_policy(void)
{
	char buf[64], path[4096];
	const char *v = read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));

	printf("\nPolicy:\n");
	if (v) {
		long p = strtol(v, NULL, 10);

		printf("  kernel.perf_event_paranoid = %ld: %s\n", p,
		       p <= -1 ? "no restrictions" :
		       p == 0 ? "kernel and CPU-wide counting allowed, no raw tracepoints" :
		       p == 1 ? "kernel counting allowed for own tasks" :
		       p == 2 ? "user-space counting of own tasks only (:k needs CAP_PERFMON)" :
			      "perf_event_open restricted to CAP_PERFMON (Debian's level 3+)");
	} else {
		printf("  kernel.perf_event_paranoid: not found (no perf events in this kernel?)\n");
	}
	const char *x86[] = { "cpu", "cpu_core", "cpu_atom" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s/rdpmc", pmu__sysfs_root(), x86[i]);
		if ((v = read_line(path, buf, sizeof(buf))))
			printf("  x86 %s/rdpmc = %s: %s\n", x86[i], v,
			       !strcmp(v, "0") ? "rdpmc disabled; write 1 to allow user-space reads" :
			       !strcmp(v, "2") ? "rdpmc allowed everywhere" :
			       "rdpmc allowed for tasks with a mapped event (what libpmu does)");
	}
	if ((v = read_line("/proc/sys/kernel/perf_user_access", buf, sizeof(buf))))
		printf("  kernel.perf_user_access = %s: %s\n", v,
		       !strcmp(v, "0") ? "user-space reads off; sysctl kernel.perf_user_access=1 allows them" :
		       !strcmp(v, "2") ? "riscv legacy mode: cycle, time and instret only" :
				       "user-space reads allowed for tasks with a mapped event");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median over 5 batches of ns per pmu_read. */
static double read_cost(struct pmu_set *s)
{
	uint64_t v[64], t[5];
	int n = 20000;

	for (int b = 0; b < 5; b++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < n; i++)
			pmu_read(s, v);
		t[b] = now_ns() - t0;
	}
	qsort(t, 5, sizeof(t[0]), cmp_u64);
	return (double)t[2] / n;
}

static void show_events(const char *events)
{
	const char *p = events, *tok;
	size_t len;
	int r, w = 24;

	while (pmu__event_next(&p, &tok, &len) > 0)	/* the event column fits the longest */
		if ((int)len > w && len < 80)
			w = (int)len;
	p = events;
	printf("\nEvents (each opened alone for the calling thread):\n");
	printf("  %-*s %-6s %-8s %s\n", w, "event", "opens", "ns/read", "read path");
	while ((r = pmu__event_next(&p, &tok, &len)) > 0) {
		char *e = strndup(tok, len);
		struct pmu_set *s;
		const char *why;

		if (!e)
			break;
		if (pmu_open(&s, e) < 0) {
			printf("  %-*s %-6s %-8s %s\n", w, e, "no", "-", pmu_errmsg());
			free(e);
			continue;
		}
		int user = pmu_user_read(s, 0, &why);
		printf("  %-*s %-6s %-8.0f %s: %s\n", w, e, "yes", read_cost(s),
		       user ? "user space" : "read(2)", why);
		pmu_close(s);
		free(e);
	}
	if (r < 0)
		printf("  %s\n", pmu_errmsg());
}

int cmd_check(int argc, char **argv)
{
	const char *events = "cycles,instructions,task-clock,page-faults";
	struct utsname u;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-e") && i + 1 < argc) {
			events = argv[++i];
		} else {
			fprintf(stderr, "usage: pmu check [-e EVENT,...]\n");
			return 2;
		}
	}
	uname(&u);
	printf("libpmu %s on %s %s (%s)\n\n", pmu_version(), u.sysname, u.release, u.machine);
	show_pmus();
	show_policy();
	show_events(events);
	return 0;
}
