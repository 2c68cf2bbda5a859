/* SPDX-License-Identifier: MIT */
/*
 * PMU_REPORT_INTERVAL: zero-code mode's report file written while the
 * program runs, then at exit as the last; bad values and a stream said and
 * the report kept for the exit; a directory that vanishes while the program
 * runs said once, the program unharmed. Runs /bin/sh with this build's
 * libpmu.so.0 preloaded; each wait is for a file, bounded, never a sleep
 * that must be long enough.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char lib[PATH_MAX], dir[PATH_MAX], out[PATH_MAX + 16];

/* Waits (up to 20 s) until the shell condition holds. */
#define WAIT(c) "i=0; until " c "; do [ $i -lt 400 ] || exit 9; i=$((i+1)); sleep 0.05; done; "

/* sh -c script with the library preloaded, PMU_EVENTS=task-clock and the variables; its status, stderr in out. */
static int sh(const char *report, const char *interval, const char *script)
{
	char cmd[4 * PATH_MAX + 1024];
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && env PMU_EVENTS=task-clock PMU_REPORT='%s' PMU_REPORT_INTERVAL='%s' "
		 "LD_PRELOAD='%s' /bin/sh -c '%s' 2>'%s'", dir, report, interval, lib, script, out);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A bad value or a stream: said, and the report written at exit all the same. */
static void refused(const char *report, const char *interval, const char *said)
{
	const char *s;

	CHECK_EQ(sh(report, interval, ":"), 0);
	s = t_file(out);
	CHECK_MSG(s && strstr(s, said), "PMU_REPORT_INTERVAL=%s: %s", interval, s ? s : "");
	if (strcmp(report, "stderr")) {
		s = t_file_in(dir, report);
		CHECK_MSG(s && strstr(s, "\"(whole run)\", \"parent\": null, \"calls\": 1"), "%s", s ? s : "no report");
	}
}

int main(int argc, char **argv)
{
	char copy[PATH_MAX];
	const char *s;

	(void)argc;
	snprintf(copy, sizeof(copy), "%s", argv[0]);
	snprintf(lib, sizeof(lib), "%s/../libpmu.so.0", dirname(copy));
	if (realpath(lib, copy))	/* the shell runs in the scratch directory */
		snprintf(lib, sizeof(lib), "%s", copy);
#ifdef T_SANITIZED
	T_SKIP("a sanitizer's libpmu.so cannot be preloaded into /bin/sh");
#endif
	if (access(lib, R_OK) != 0)
		T_SKIP("%s: %s (a static build has no shared library)", lib, strerror(errno));
	if (t_tmpdir(dir, sizeof(dir), "interval"))
		T_DONE();
	snprintf(out, sizeof(out), "%s/stderr", dir);

	/* Written while the shell runs (its whole run still open: no call yet), then at exit, the last. */
	CHECK_EQ(sh("r.json", "50ms", WAIT("[ -s r.json ]") "cp r.json mid.json"), 0);
	s = t_file_in(dir, "mid.json");
	CHECK_MSG(s && strstr(s, "\"library\": \"libpmu ") && !strstr(s, "\"calls\": 1"), "%s", s ? s : "none mid-run");
	s = t_file_in(dir, "r.json");
	CHECK_MSG(s && strstr(s, "\"(whole run)\", \"parent\": null, \"calls\": 1"), "%s", s ? s : "no report");

	refused("r0.json", "0", "PMU_REPORT_INTERVAL=0: not an interval from 10ms to a day");
	refused("r1.json", "10 s", "PMU_REPORT_INTERVAL=10 s: not an interval");
	refused("r2.json", "nan", "PMU_REPORT_INTERVAL=nan: not an interval");
	refused("stderr", "1s", "PMU_REPORT_INTERVAL needs PMU_REPORT to name a file, not stderr");

	/* The directory goes while the shell runs: said once, the shell unharmed, its status kept. */
	{
		char sub[PATH_MAX + 16];

		snprintf(sub, sizeof(sub), "%s/sub", dir);
		CHECK(mkdir(sub, 0700) == 0);
	}
	CHECK_EQ(sh("sub/r.json", "50ms", WAIT("[ -s sub/r.json ]") "rm -rf sub; "
		    WAIT("grep -q \"tried again\" stderr") "sleep 0.2; exit 4"), 4);
	s = t_file(out);
	CHECK_MSG(s && (s = strstr(s, "libpmu: PMU_REPORT_INTERVAL: ")) && strstr(s, "(tried again each interval)\n") &&
		  !strstr(strstr(s, "tried again") + 1, "tried again"), "%s", s ? s : "");
	T_DONE();
}
