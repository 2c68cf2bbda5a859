/* SPDX-License-Identifier: MIT */
/* pmu check: what this machine allows, for a person deciding whether to trust the numbers. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "layers.h"
#include "policy.h"
#include "cmds.h"
#include "counters/set_ops.h"
#include "emulate.h"

static int status;	/* 1 when something could not be shown (said) */

static void show_pmus(void)
{
	char **names;
	size_t n;
	int core = 0, r;

	printf("PMUs (%s):\n", pmu__sysfs_root());
	if ((r = pmu__pmu_names(&names, &n)) < 0) {
		printf("  none: %s\n", strerror(-r));
		if (r == -ENOMEM)
			status = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct pmu__desc d;

		if (pmu__desc_load(names[i], strlen(names[i]), &d) < 0) {
			printf("  %-20s type ?  (%s)\n", names[i], pmu_errmsg());
			continue;
		}
		printf("  %-20s type %u%s\n", d.name, d.type, d.core ? "  (core PMU: cycles, instructions, ...)" : "");
		core += d.core;
		pmu__desc_free(&d);
	}
	pmu__names_free(names, n);
	if (pmu__emulated())
		printf("  emulated: instructions counted by %s, not by a PMU\n", pmu__emulated());
	else if (!core)
		printf("  no core PMU: hardware events (cycles, instructions, cache misses) cannot be counted\n"
		       "  here; a virtual machine needs a virtual PMU (e.g. KVM's -cpu host,pmu=on)\n");
}

static void policy_line(void *arg, const char *name, const char *value, const char *meaning)
{
	(void)arg;
	if (strstr(meaning, "out of memory"))
		status = 1;
	if (value)
		printf("  %s = %s: %s\n", name, value, meaning);
	else
		printf("  %s: %s\n", name, meaning);
}

static void show_policy(void)
{
	bool capable;

	printf("\nPolicy:\n");
	policy_list(policy_line, NULL);
	if (pmu__seccomp_filtered(&capable))
		printf("  seccomp: a filter is on this process (Seccomp: 2 in /proc/self/status): a container's "
		       "profile may refuse\n  perf_event_open whatever perf_event_paranoid allows (an event "
		       "refused so says it below)\n");
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
		uint64_t t0 = pmu__mono_ns();

		for (int i = 0; i < n; i++)
			pmu_read(s, v);
		t[b] = pmu__mono_ns() - t0;
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

		if (!e) {
			printf("  out of memory\n");
			status = 1;
			break;
		}
		if (pmu_open(&s, e) < 0) {
			struct perf_event_attr a = { .size = sizeof(a) };
			int no_event;

			printf("  %-*s %-6s %-8s %s\n", w, e, "no", "-", pmu_errmsg());
			if (strstr(pmu_errmsg(), "out of memory"))
				status = 1;
			/* an event this machine has but cannot open is an answer; a name that is no event, a failure */
			if ((no_event = pmu_event_attr(e, &a)) < 0)
				status = 1;
			if (no_event == -ENOMEM)
				printf("  %s\n", pmu_errmsg());
			free(e);
			continue;
		}
		int user = pmu_user_read(s, 0, &why);
		printf("  %-*s %-6s %-8.0f %s: %s\n", w, e, "yes", read_cost(s),
		       user ? "user space" : "read(2)", why);
		pmu_close(s);
		free(e);
	}
	if (r < 0) {
		printf("  %s\n", pmu_errmsg());
		status = 1;
	}
}

int cmd_check(int argc, char **argv)
{
	const char *events = "cycles,instructions,task-clock,page-faults";
	struct utsname u;

	for (int i = 1; i < argc; i++) {
		bool help = !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");

		if (!strcmp(argv[i], "-e") && i + 1 < argc) {
			events = argv[++i];
		} else {
			fprintf(help ? stdout : stderr, "usage: pmu check [-e EVENT,...]\n"
				"  what this machine allows: its PMUs, the policy settings, and for each\n"
				"  event whether it opens, its read path and why, and what a read costs\n");
			return help ? 0 : TOOL_USAGE;
		}
	}
	status = 0;
	uname(&u);
	printf("libpmu %s on %s %s (%s)\n\n", pmu_version(), u.sysname, u.release, u.machine);
	show_pmus();
	show_policy();
	emu_backends();
	show_events(events);
	return status;
}
