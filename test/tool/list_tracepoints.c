/* SPDX-License-Identifier: MIT */
/*
 * pmu list's tracepoints (a tracefs copy with odd entries; this machine's
 * against perf list), --available, and the PMUs without sysfs events.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "tool_run.h"

/* Each "  NAME" line of a listing opens with pmu encode. */
static void encodes(const char *listing, const char *prefix)
{
	static char copy[sizeof(out)];
	char *save;

	snprintf(copy, sizeof(copy), "%s", listing);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char ev[256];

		if (strncmp(l, "  ", 2) || sscanf(l + 2, "%255s", ev) != 1 || strncmp(ev, prefix, strlen(prefix)))
			continue;
		CHECK_MSG(run("", tool, "encode '%s'", ev) == 0, "listed %s does not resolve: %s", ev, err);
	}
}

int main(void)
{
	char env[PATH_MAX + 64], intel[PATH_MAX + 64];
	int st;

	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");
	snprintf(env, sizeof(env), "PMU_TRACEFS='%s/tracefs'", fix);
	snprintf(intel, sizeof(intel), "--sysfs '%s/intel'", fix);

	/* the copy: files, an event without id, a malformed id, a directory named id, odd and long names left out */
	st = run(env, tool, "list %s tracepoint", intel);
	CHECK_MSG(st == 0 && !strcmp(out, "tracepoint events:\n"
		"  sched:sched_switch                                 [Tracepoint event]\n"
		"  sched:sched_wakeup                                 [Tracepoint event]\n"
		"  syscalls:sys_enter_read                            [Tracepoint event]\n") && !err[0],
		"exit %d:\n%s%s", st, out, err);
	/* perf list's globs, and a subsystem or a name alone */
	CHECK(run(env, tool, "list %s 'sched:*'", intel) == 0 && strstr(out, "sched:sched_wakeup") &&
	      !strstr(out, "syscalls") && !strstr(out, "PMU "));
	CHECK(run(env, tool, "list %s sched", intel) == 0 && strstr(out, "sched:sched_switch") && !strstr(out, "sys_"));
	CHECK(run(env, tool, "list %s sys_enter_read", intel) == 0 && strstr(out, "syscalls:sys_enter_read"));
	CHECK(run(env, tool, "list %s 'nosuch:*'", intel) == 1 && strstr(err, "no event matches 'nosuch:*'"));
	/* in the whole list, after the PMUs; JSON with the ids */
	CHECK(run(env, tool, "list %s", intel) == 0 && strstr(out, "\ntracepoint events:\n  sched:sched_switch") &&
	      strstr(out, "PMU uprobe") < strstr(out, "tracepoint events:"));
	st = run(env, tool, "list %s --json 'sched:*'", intel);
	CHECK_MSG(st == 0 && strstr(out, "{\"event\": \"sched:sched_switch\", \"name\": \"sched:sched_switch\", "
				     "\"kind\": \"tracepoint\", \"encoding\": \"type=2 config=0x13c\"}"),
		  "exit %d: %s", st, out);
	/* without tracefs: said, with what to do; exit 1 as for nothing listed */
	st = run("PMU_TRACEFS=/nonexistent", tool, "list tracepoint");
	CHECK_MSG(st == 1 && !out[0] && strstr(err, "PMU_TRACEFS=/nonexistent has no events directory") &&
		  !strstr(err, "no event matches"), "exit %d: %s", st, err);
	/* a sysfs copy: this machine's tracepoints are not its */
	st = run("", tool, "list %s tracepoint", intel);
	CHECK_MSG(st == 1 && strstr(err, "PMU_TRACEFS=DIR"), "exit %d: %s", st, err);
	CHECK(run("", tool, "list %s", intel) == 0 && !strstr(out, "tracepoint events:"));

	/* a FIFO as an id, a symbolic link loop, a file as a subsystem: left out, nothing blocks */
	{
		char dir[] = "/tmp/pmu-tracefs-XXXXXX", cmd[256];

		if (mkdtemp(dir)) {
			snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p events/a/fifo events/a/ok events/a/loop && "
				 "mkfifo events/a/fifo/id && echo 7 >events/a/ok/id && ln -s ../loop events/a/loop/id && "
				 "ln -s loop2 events/loop2 && echo 1 >events/file", dir);
			CHECK(system(cmd) == 0);
			snprintf(cmd, sizeof(cmd), "PMU_TRACEFS=%s", dir);
			st = run(cmd, tool, "list --json tracepoint");
			CHECK_MSG(st == 0 && strstr(out, "\"a:ok\"") && strstr(out, "config=0x7") && !strstr(out, "a:fifo") &&
				  !strstr(out, "a:loop"), "exit %d: %s%s", st, out, err);
			snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
			CHECK(system(cmd) == 0);
		}
	}

	/* this machine's, as perf list shows them */
	if (run("", tool, "list tracepoint") == 0) {
		static char mine[sizeof(out)];
		const char *body = strchr(out, '\n') + 1;

		CHECK(!strncmp(out, "tracepoint events:\n", 19));
		snprintf(mine, sizeof(mine), "%s", body);
		if (!access("/usr/bin/perf", X_OK) && run("", "/usr/bin/perf", "list tracepoint") == 0)
			CHECK_MSG(!strcmp(mine, out), "pmu list tracepoint differs from perf list tracepoint");
		else
			printf("perf not found: not compared\n");
		/* some of them resolve */
		snprintf(mine, sizeof(mine), "%.4000s", body);
		encodes(mine, "");
	} else {
		CHECK_MSG(strstr(err, "tracefs") && strstr(err, "tracepoints not listed"), "%s", err);
		printf("tracefs not readable here: %s", err);
	}

	/* the software PMU has no sysfs events: what can be written for it, each resolving */
	st = run("", tool, "list software/");
	CHECK_MSG(st == 0 && strstr(out, "PMU software (type 1):") && strstr(out, "software/config=0x1/") &&
		  strstr(out, "task-clock: time the task ran"), "exit %d: %s%s", st, out, err);
	encodes(out, "software/");
	CHECK(run("", tool, "list %s tracepoint/", intel) == 0 && strstr(out, "pmu list tracepoint"));

	/* --available: software events open; not with another machine's sysfs */
	st = run("", tool, "list --available sw");
	CHECK_MSG(st == 0 && strstr(out, "  task-clock ") && strstr(out, "  page-faults "), "exit %d: %s", st, err);
	st = run("", tool, "list --available %s", intel);
	CHECK_MSG(st == 129 && strstr(err, "--available") && strstr(err, "--sysfs"), "exit %d: %s", st, err);
	/* every event it keeps opens in pmu stat */
	if (run("", tool, "list --available 'sched:sched_switch'") == 0) {
		CHECK(strstr(out, "sched:sched_switch"));
		CHECK_MSG(run("", tool, "stat -x, -e sched:sched_switch true") == 0, "%s", err);
	}
	T_DONE();
}
