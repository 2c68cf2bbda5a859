/* SPDX-License-Identifier: MIT */
/*
 * Zero-code mode is never silent: a shell that ends with _exit() (dash, sh -c)
 * still writes its report; an event that does not open is left out with its
 * reason, in every format, and the others are counted; LIKWID's '|' between
 * groups is understood; a name that is no event at all stops it with a message;
 * when nothing opens, every event's reason is said.
 * Runs /bin/sh with this build's libpmu.so.0 preloaded.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char lib[PATH_MAX], dir[PATH_MAX], out[PATH_MAX + 16];

/* Runs sh -c script with the library preloaded and the two variables; its exit status, stderr in out. */
static int sh(const char *events, const char *report, const char *script)
{
	char cmd[3 * PATH_MAX + 512];
	int st;

	snprintf(cmd, sizeof(cmd), "env PMU_EVENTS='%s' PMU_REPORT='%s' LD_PRELOAD='%s' /bin/sh -c '%s' 2>'%s'",
		 events, report, lib, script, out);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	char rep[PATH_MAX + 64], copy[PATH_MAX];
	const char *s;

	(void)argc;
	snprintf(copy, sizeof(copy), "%s", argv[0]);
	snprintf(lib, sizeof(lib), "%s/../libpmu.so.0", dirname(copy));
#ifdef T_SANITIZED
	T_SKIP("a sanitizer's libpmu.so cannot be preloaded into /bin/sh");
#endif
	if (access(lib, R_OK) != 0)
		T_SKIP("%s: %s (a static build has no shared library)", lib, strerror(errno));
	if (t_tmpdir(dir, sizeof(dir), "silent"))
		T_DONE();
	snprintf(out, sizeof(out), "%s/stderr", dir);

	/* sh -c ends with _exit(): the report is written all the same, and the status kept. */
	snprintf(rep, sizeof(rep), "%s/sh.json", dir);
	CHECK_EQ(sh("task-clock", rep, "exit 3"), 3);
	s = t_file_in(dir, "sh.json");
	CHECK_MSG(s && strstr(s, "\"(whole run)\"") && strstr(s, "\"task-clock\""), "%s", s ? s : "no report");

	/* A report name whose extension asks for no format: said, nothing written, the status kept. */
	snprintf(rep, sizeof(rep), "%s/run.xml", dir);
	CHECK_EQ(sh("task-clock", rep, "exit 4"), 4);
	s = t_file(out);
	CHECK_MSG(s && strstr(s, "run.xml: the extension .xml names no report format"), "%s", s ? s : "");
	CHECK_MSG(access(rep, F_OK) != 0, "%s was written", rep);

	/* An event that does not open (a software config no kernel has): left out, the rest counted. */
	CHECK_EQ(sh("task-clock,software/config=0x7777/", "stderr", ":"), 0);
	s = t_file(out);
	CHECK_MSG(s && strstr(s, "libpmu: PMU_EVENTS: software/config=0x7777/ <not supported>: ") &&
		  strstr(s, "events: task-clock\n") && strstr(s, "(whole run)"), "%s", s ? s : "");
	snprintf(rep, sizeof(rep), "%s/r.csv", dir);
	CHECK_EQ(sh("task-clock,software/config=0x7777/", rep, ":"), 0);
	s = t_file_in(dir, "r.csv");
	CHECK_MSG(s && strstr(s, ",software/config=0x7777/\n") && strstr(s, ",<not supported>\n"), "%s", s ? s : "");
	snprintf(rep, sizeof(rep), "%s/r.json", dir);
	CHECK_EQ(sh("task-clock,software/config=0x7777/", rep, ":"), 0);
	s = t_file_in(dir, "r.json");
	CHECK_MSG(s && strstr(s, "\"not_supported\": {\"software/config=0x7777/\": \"") &&
		  strstr(s, "\"events\": [\"task-clock\"]"), "%s", s ? s : "");

	/* LIKWID's group separator: both groups' events, in one report. */
	CHECK_EQ(sh("task-clock|page-faults", "stderr", ":"), 0);
	s = t_file(out);
	CHECK_MSG(s && strstr(s, "events: task-clock, page-faults\n") && !strstr(s, "unknown"), "%s", s ? s : "");

	/* Not an event at all: a message, nothing counted, the program runs. */
	CHECK_EQ(sh("task-clock,no-such-event", "stderr", "exit 4"), 4);
	s = t_file(out);
	CHECK_MSG(s && strstr(s, "no-such-event") && !strstr(s, "libpmu report"), "%s", s ? s : "");

	/* Nothing paid until used: preloaded, with or without events, no libpfm4 and no libm mapped. */
	for (int k = 0; k < 2; k++) {
		char script[PATH_MAX + 64];

		snprintf(script, sizeof(script), "cat /proc/self/maps > %s/maps", dir);
		CHECK_EQ(sh(k ? "task-clock" : "", "/dev/null", script), 0);
		s = t_file_in(dir, "maps");
		CHECK_MSG(s && strstr(s, "libpmu.so") && !strstr(s, "libpfm") && !strstr(s, "libm.so"), "%s",
			  s ? s : "no maps");
	}

	/* Nothing opens: said once, and the program runs. */
	CHECK_EQ(sh("software/config=0x7777/", "stderr", ":"), 0);
	s = t_file(out);
	CHECK_MSG(s && strstr(s, "nothing is counted") && !strstr(s, "libpmu report"), "%s", s ? s : "");
	/* ... with each group's reason, not only the last one's */
	CHECK_EQ(sh("software/config=0x7777/|software/config=0x7778/", "stderr", ":"), 0);
	s = t_file(out);
	CHECK_MSG(s && strstr(s, "nothing is counted: software/config=0x7777/: ") &&
		  strstr(s, "; software/config=0x7778/: "), "%s", s ? s : "");

	if (!t_failures) {
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	T_DONE();
}
